internal import CSQLite
import Foundation

/// One SQLite connection. Not `Sendable`: it lives inside ``SQLiteDatabase``, which hands it out
/// only inside a transaction closure.
package final class SQLiteConnection {
    private let handle: OpaquePointer
    /// Prepared statements by their SQL. Only ever reached by the one thread holding the
    /// connection, so the runtime's exclusivity check would only add a thread-local look-up.
    @exclusivity(unchecked) private var statements: [StatementKey: SQLiteStatement] = [:]
    private let busyTimeoutMilliseconds: Int32
    /// Whether this connection switched the file to write-ahead logging, so that closing it may
    /// checkpoint the log. Never set for a file that is not known to be ours.
    private var usesWriteAheadLog = false
    private var isClosed = false
    /// How many write transactions ``SQLiteDatabase`` committed on this connection: what
    /// ``changeStamp()`` adds to `PRAGMA data_version`, which does not move for a connection's own
    /// commits.
    var committedWriteCount: UInt64 = 0

    /// Page size of new files. The vault's tables are keyed by random ids without a rowid, and
    /// such a b-tree keeps a row inside its page only up to about a quarter of the page: with
    /// SQLite's default of 4 KiB, every sealed record over 1 KiB spilled into an overflow page of
    /// its own, and a vault of 1 KiB secrets took three times their sealed bytes on disk. 16 KiB
    /// keeps records up to 4 KiB in place. 32 KiB packed 3 KiB token records tighter still (nine a
    /// page, where 16 KiB fits four), but every commit then wrote twice the bytes and a durable
    /// store took about 70% longer. Existing files keep the size they were made with.
    package static let pageSize = 16_384

    /// The most memory, in KiB, SQLite's page cache of one connection grows to (`cache_size`):
    /// 32 MiB, where SQLite's default is 2 MiB (128 pages of 16 KiB). Look-ups in a vault of 100,000
    /// tokens touch a random page of the records, their look-up tags and the index each, and a key
    /// rotation or a format upgrade rewrites every page in one transaction: with the default cache
    /// those pages were read again and spilled to the log over and over, and a rotation at 100,000
    /// tokens took twice as long. The cache only grows as pages are read.
    package static let pageCacheKiB = 32_768

    /// The size past which a checkpointed write-ahead log is truncated (`journal_size_limit`).
    package static let logSizeLimit = 1 << 20

    /// How many pages the log holds before a commit checkpoints it (`wal_autocheckpoint`): half
    /// the limit, so the log stays under ``logSizeLimit`` even when the commit that crosses this
    /// mark writes another fifteen pages (a store writes four to eight).
    package static let autoCheckpointPages = logSizeLimit / pageSize / 2

    /// How to open the file.
    package enum Mode: Sendable {
        /// Create the file if missing (the caller has already created it with safe permissions).
        case readWriteCreate
        /// Open an existing file; fail if it is missing.
        case readWrite
        /// A private in-memory database.
        case memory
    }

    /// Opens `path` and applies the vault's pragmas.
    ///
    /// - Parameters:
    ///   - path: The file path (ignored for ``Mode/memory``).
    ///   - mode: How to open it.
    ///   - busyTimeout: How long to wait for another connection's lock before failing.
    ///   - check: Given the status of the file SQLite opened, before anything reads it; what it
    ///     throws closes the connection and is rethrown (see ``SQLiteFileCheck``).
    package init(
        path: String, mode: Mode, busyTimeout: Duration,
        admitting check: (@Sendable (stat) throws(SQLiteFileCheck.Failure) -> Void)? = nil
    ) throws {
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE
        var target = path
        switch mode {
        case .readWriteCreate: flags |= SQLITE_OPEN_CREATE
        case .readWrite: break
        case .memory:
            flags |= SQLITE_OPEN_CREATE | SQLITE_OPEN_MEMORY
            target = ":memory:"
        }
        var opened: OpaquePointer?
        let status = sqlite3_open_v2(target, &opened, flags, nil)
        guard let opened else {
            throw StorageError(extendedCode: status, message: "cannot allocate a connection")
        }
        handle = opened
        guard status == SQLITE_OK else {
            let error = StorageError(
                extendedCode: sqlite3_extended_errcode(opened), message: String(cString: sqlite3_errmsg(opened)))
            sqlite3_close_v2(opened)
            throw error
        }
        if let check {
            var info = stat()
            let descriptor = tokenvault_sqlite_main_descriptor(opened)
            guard descriptor >= 0, fstat(descriptor, &info) == 0 else {
                sqlite3_close_v2(opened)
                throw StorageError(extendedCode: SQLITE_CANTOPEN, message: "cannot check the file SQLite opened")
            }
            do {
                try check(info)
            } catch {
                sqlite3_close_v2(opened)
                throw error
            }
        }
        sqlite3_extended_result_codes(handle, 1)
        let milliseconds =
            busyTimeout.components.seconds * 1000
            + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        busyTimeoutMilliseconds = Int32(clamping: milliseconds)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        try execute(
            """
            PRAGMA trusted_schema = OFF;
            PRAGMA cell_size_check = ON;
            PRAGMA secure_delete = ON;
            PRAGMA foreign_keys = ON;
            PRAGMA page_size = \(Self.pageSize);
            PRAGMA journal_size_limit = \(Self.logSizeLimit);
            PRAGMA wal_autocheckpoint = \(Self.autoCheckpointPages);
            PRAGMA cache_size = -\(Self.pageCacheKiB);
            """)
        try execute("PRAGMA synchronous = FULL")
    }

    deinit {
        close()
    }

    /// Checkpoints the log (when this connection switched the file to one) and closes the
    /// connection; every later call throws ``StorageError/closed``.
    ///
    /// SQLite's own close checkpoints only when no other connection has the file open, and then
    /// deletes the `-wal` and `-shm` files; this also empties the log while other processes keep
    /// the file open, as long as none of them is reading or writing at that moment. Never fails:
    /// a busy checkpoint leaves the log, which holds every committed transaction, to them.
    package func close() {
        guard !isClosed else { return }
        statements.removeAll()
        if usesWriteAheadLog { _ = try? checkpoint() }
        sqlite3_close_v2(handle)
        isClosed = true
    }

    /// Runs one or more statements without parameters.
    package func execute(_ sql: String) throws {
        guard !isClosed else { throw StorageError.closed }
        try check(sqlite3_exec(handle, sql, nil, nil, nil))
    }

    /// Runs one statement with parameters, discarding any rows.
    package func run(_ sql: String, _ values: [SQLiteValue] = []) throws {
        let statement = try prepared(sql)
        defer { statement.reset() }
        try statement.bind(values)
        while try statement.step() {}
    }

    /// Runs a query and maps each row.
    package func query<Row>(
        _ sql: String, _ values: [SQLiteValue] = [], row map: (SQLiteRow) throws -> Row
    ) throws -> [Row] {
        let statement = try prepared(sql)
        defer { statement.reset() }
        try statement.bind(values)
        var rows: [Row] = []
        while try statement.step() {
            rows.append(try map(statement.row()))
        }
        return rows
    }

    /// Runs a query and maps its first row, if any.
    package func queryFirst<Row>(
        _ sql: String, _ values: [SQLiteValue] = [], row map: (SQLiteRow) throws -> Row
    ) throws -> Row? {
        let statement = try prepared(sql)
        defer { statement.reset() }
        try statement.bind(values)
        return try statement.step() ? map(statement.row()) : nil
    }

    /// Switches a file database to write-ahead logging. Call only once the file is known to be a
    /// vault: the journal mode is stored in the file, and another application's database must
    /// never be changed by an attempt to open it.
    package func enableWriteAheadLog() throws {
        try execute("PRAGMA journal_mode = WAL")
        usesWriteAheadLog = true
    }

    /// Copies every committed page from the write-ahead log into the database file and truncates
    /// the log to zero bytes, without waiting for other connections.
    ///
    /// Wraps `sqlite3_wal_checkpoint_v2` in `SQLITE_CHECKPOINT_TRUNCATE` mode with the busy
    /// timeout set to zero: waiting would hold the write lock against every other writer while a
    /// reader finishes. When another connection is reading or writing, the pages its snapshot
    /// does not need are still copied and the rest stay in the log, which keeps every committed
    /// transaction; a later checkpoint finishes the job. Call it outside any transaction.
    ///
    /// - Returns: `true` when the log was emptied, `false` when another connection kept part of
    ///   it (nothing is lost either way). `true` for a database without a log.
    /// - Throws: ``StorageError`` for an I/O error while copying pages.
    package func checkpoint() throws -> Bool {
        guard !isClosed else { throw StorageError.closed }
        sqlite3_busy_timeout(handle, 0)
        defer { sqlite3_busy_timeout(handle, busyTimeoutMilliseconds) }
        let status = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
        if status & 0xff == SQLITE_BUSY || status & 0xff == SQLITE_LOCKED { return false }
        try check(status)
        return true
    }

    /// Checks the structure of the whole file with SQLite's `PRAGMA integrity_check`: every
    /// b-tree page, every index entry against its table row, `NOT NULL` and `CHECK` constraints.
    /// A damaged index can make a row unreachable by its key while a full scan still finds it,
    /// which only this check notices.
    ///
    /// - Parameter limit: The most problems to report.
    /// - Returns: SQLite's problem lines (they name tables, indexes and pages, never row
    ///   contents); empty when the file is intact.
    /// - Throws: ``StorageError`` when SQLite cannot read far enough to check (`SQLITE_CORRUPT`
    ///   for a file too damaged to walk).
    package func integrityProblems(limit: Int) throws -> [String] {
        let lines = try query("PRAGMA integrity_check(\(max(1, limit)))") { $0.text(0) }
        return lines == ["ok"] ? [] : lines
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    package var changes: Int { isClosed ? 0 : Int(sqlite3_changes(handle)) }

    /// Caps the database size in pages: writes past it fail with `SQLITE_FULL`, exactly as on a
    /// full disk. Used by tests to prove a failed write leaves the previous state intact.
    package func limitPageCount(to pages: Int) throws {
        try execute("PRAGMA max_page_count = \(pages)")
    }

    private func prepared(_ sql: String) throws -> SQLiteStatement {
        guard !isClosed else { throw StorageError.closed }
        if let statement = statements[StatementKey(sql: sql)] { return statement }
        var raw: OpaquePointer?
        try check(sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil))
        guard let raw else { throw StorageError(extendedCode: SQLITE_MISUSE, message: "empty statement") }
        let statement = SQLiteStatement(connection: self, handle: raw)
        statements[StatementKey(sql: sql)] = statement
        return statement
    }

    /// A key of the statement cache: the SQL, hashed by its length only. Hashing the whole text
    /// took a pass over it on every statement run (a durable store runs six). The cache holds a
    /// few dozen statements, so lengths seldom collide, and equality still compares the text (at
    /// once when it is the same string, as a statement's SQL usually is).
    private struct StatementKey: Hashable {
        let sql: String

        func hash(into hasher: inout Hasher) {
            hasher.combine(sql.utf8.count)
        }
    }

    func check(_ status: Int32) throws {
        guard status == SQLITE_OK else { throw error(status) }
    }

    func error(_ status: Int32) -> StorageError {
        let extended = sqlite3_extended_errcode(handle)
        return StorageError(
            extendedCode: (extended & 0xff) == (status & 0xff) ? extended : status,
            message: String(cString: sqlite3_errmsg(handle)))
    }
}
