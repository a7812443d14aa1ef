import Foundation
import Locking

/// A serialised SQLite connection that is used only through transactions.
///
/// Every use is a closure run inside a transaction that commits when the closure returns and
/// rolls back when it throws (GRDB's `write { db in }`). Writes start with `BEGIN IMMEDIATE`, so a
/// read-modify-write never races another process; reads see one consistent snapshot.
package final class SQLiteDatabase: Sendable {
    private let connection: Locked<SQLiteConnection>

    /// Opens a database file (or a private in-memory one).
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - mode: How to open it.
    ///   - busyTimeout: How long to wait for another process's lock.
    ///   - check: Checks the file SQLite opened before anything reads it; see
    ///     ``SQLiteConnection/init(path:mode:busyTimeout:admitting:)``.
    package init(
        path: String, mode: SQLiteConnection.Mode, busyTimeout: Duration,
        admitting check: (@Sendable (stat) throws(SQLiteFileCheck.Failure) -> Void)? = nil
    ) throws {
        connection = Locked(
            try SQLiteConnection(path: path, mode: mode, busyTimeout: busyTimeout, admitting: check))
    }

    /// Switches the file to write-ahead logging (outside any transaction); see
    /// ``SQLiteConnection/enableWriteAheadLog()``.
    package func enableWriteAheadLog() throws {
        try connection.withLock { try $0.enableWriteAheadLog() }
    }

    /// Writes a consistent copy of the database to `path` (`VACUUM INTO`, which reads one snapshot
    /// itself and cannot run inside a transaction).
    package func copy(to path: String) throws {
        try connection.withLock { try $0.run("VACUUM INTO ?", [.text(path)]) }
    }

    /// Moves the write-ahead log into the file and truncates it, without waiting for other
    /// connections; see ``SQLiteConnection/checkpoint()``.
    ///
    /// - Returns: `true` when the log was emptied, `false` when another connection was reading or
    ///   writing (every committed transaction stays in the log).
    /// - Throws: ``StorageError`` for an I/O error, or ``StorageError/closed``.
    package func checkpoint() throws -> Bool {
        try connection.withLock { try $0.checkpoint() }
    }

    /// Checkpoints the log and closes the connection, after any transaction running on it ends;
    /// see ``SQLiteConnection/close()``. Later calls throw ``StorageError/closed``.
    package func close() {
        connection.withLock { $0.close() }
    }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`), counted in the connection's
    /// ``SQLiteChangeStamp`` once it commits.
    package func write<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        try transaction("BEGIN IMMEDIATE") { db in
            let result = try body(db)
            // Counted before COMMIT runs: a commit that fails after this only makes a cache read again.
            db.committedWriteCount &+= 1
            return result
        }
    }

    /// Runs `body` in a read transaction: one consistent snapshot.
    package func read<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        try transaction("BEGIN DEFERRED", body)
    }

    private func transaction<Result>(
        _ begin: String, _ body: (SQLiteConnection) throws -> Result
    ) throws -> Result {
        // `run`, not `execute`: the connection keeps these statements prepared, where
        // `sqlite3_exec` would parse and compile them again for every transaction.
        try connection.withLock { db in
            try db.run(begin)
            do {
                let result = try body(db)
                try db.run("COMMIT")
                return result
            } catch {
                try? db.run("ROLLBACK")
                throw error
            }
        }
    }
}
