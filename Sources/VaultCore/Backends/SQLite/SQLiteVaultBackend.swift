import Locking
import VaultStorage

/// A vault in one SQLite file, or in memory: the ``VaultBackend`` over a ``SQLiteDatabase``.
///
/// Writes take SQLite's write lock at once (`BEGIN IMMEDIATE`), so two processes sharing the file
/// never interleave a read-modify-write. What only a file allows (backups, checkpoints of the
/// write-ahead log, a vault file's permissions) goes to ``database`` directly, beside this type.
///
/// A write transaction starts from what the last one of this backend left (``KnownRecordState``)
/// when the connection's ``SQLiteChangeStamp``, read under the write lock, is the one that write
/// committed at: no connection, this one included, has committed anything since, so the header,
/// the digests, the index mark and the rows it read are still what the file holds. Any other
/// commit, of another process, of another vault on the file, or of this connection outside this
/// type (an upgrade, a test hook), moves the stamp, and the transaction reads everything again.
final class SQLiteVaultBackend: VaultBackend {
    /// The connection, for the file-only features.
    let database: SQLiteDatabase
    /// What the last write transaction of this backend knew of the rows, and the stamp its commit
    /// left the connection at.
    private let known = Locked<(stamp: SQLiteChangeStamp, state: KnownRecordState)?>(nil)
    /// How many write transactions started from what the last one knew, and how many read
    /// everything again because something else committed in between.
    let writesFromKnownState = Locked((reused: 0, readAgain: 0))

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
        var committed: (stamp: SQLiteChangeStamp, state: KnownRecordState)?
        let result = try database.write { db in
            let stamp = try db.changeStamp()
            // Taken, not copied: writes on the connection run one at a time, and a transaction that
            // fails leaves nothing kept, so the next one reads everything again.
            let reused = known.withLock { kept -> KnownRecordState? in
                defer { kept = nil }
                return kept?.stamp == stamp ? kept?.state : nil
            }
            writesFromKnownState.withLock {
                if reused == nil { $0.readAgain += 1 } else { $0.reused += 1 }
            }
            let draft = reused ?? KnownRecordState(keepsValueRows: false)
            let result = try body(SQLiteBackendTransaction(db, known: draft))
            committed = (stamp.afterLocalCommit, draft)
            return result
        }
        if let committed {
            // Another thread's later commit may have been kept already: keep the later one.
            known.withLock { current in
                if (current?.stamp.localCommits ?? 0) < committed.stamp.localCommits { current = committed }
            }
        }
        return result
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
