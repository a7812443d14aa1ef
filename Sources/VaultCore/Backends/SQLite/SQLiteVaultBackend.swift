import VaultStorage

/// A vault in one SQLite file, or in memory: the ``VaultBackend`` over a ``SQLiteDatabase``.
///
/// Writes take SQLite's write lock at once (`BEGIN IMMEDIATE`), so two processes sharing the file
/// never interleave a read-modify-write. What only a file allows (backups, checkpoints of the
/// write-ahead log, a vault file's permissions) goes to ``database`` directly, beside this type.
final class SQLiteVaultBackend: VaultBackend {
    /// The connection, for the file-only features.
    let database: SQLiteDatabase

    /// A backend over an open database.
    ///
    /// - Parameter database: A vault file, or an in-memory database.
    init(_ database: SQLiteDatabase) {
        self.database = database
    }

    func read<Result>(_ body: (any BackendReadTransaction) throws -> Result) throws -> Result {
        try database.read { try body(SQLiteBackendTransaction($0)) }
    }

    func write<Result>(_ body: (any BackendWriteTransaction) throws -> Result) throws -> Result {
        try database.write { try body(SQLiteBackendTransaction($0)) }
    }

    /// A file tells no process of another's commit, so every mark is the same.
    func changeMark() -> UInt64 { 0 }

    /// Sleeps a short while (20 ms at most): a file tells no process of another's commit, so the
    /// caller looks again after it.
    func waitForChange(since mark: UInt64, timeout: Duration) async {
        try? await Task.sleep(for: min(timeout, .milliseconds(20)))
    }

    func close() {
        database.close()
    }
}
