import VaultStorage

/// Keeping the write-ahead log of a vault file small: SQLite only, as no other backend keeps a log
/// beside the vault. Every commit is appended to the vault's `-wal` file first;
/// a checkpoint copies the pages into the vault file and empties the log. SQLite checkpoints on
/// its own every few commits, but the log file keeps its size until a write starts it over, and
/// a process that exits without closing leaves it behind.
extension Vault {
    /// Copies the write-ahead log into the vault file and truncates it to zero bytes, without
    /// waiting for other connections (wraps `PRAGMA wal_checkpoint(TRUNCATE)`).
    ///
    /// When another connection (in this process or another) is reading or writing, the pages it
    /// still needs stay in the log, which keeps every committed transaction; the next checkpoint,
    /// or the last connection to close, finishes the job. Call it after bulk work.
    ///
    /// - Returns: `true` when the log was emptied, `false` when another connection kept part of it.
    ///   `true` for an in-memory vault, and for a vault of another backend (it has no log).
    /// - Throws: ``VaultError/storage(_:)`` for an I/O error, or when the vault was closed.
    @discardableResult
    package func compactLog() throws -> Bool {
        guard let file = backend as? SQLiteVaultBackend else { return true }
        return try Self.translatingErrors { try file.database.checkpoint() }
    }

    /// ``compactLog()`` after a transaction that rewrote much of the file (a key rotation, a
    /// migration), which has already committed: a failed checkpoint must not fail it.
    func compactLogAfterBulkWork() {
        _ = try? compactLog()
    }

    /// ``compactLogAfterBulkWork()`` for code that holds the backend but no vault yet.
    static func compactLogAfterBulkWork(_ backend: any VaultBackend) {
        guard let file = backend as? SQLiteVaultBackend else { return }
        _ = try? file.database.checkpoint()
    }
}
