import Locking
import VaultStorage

/// A vault in a PostgreSQL schema, shared by a fleet: the ``VaultBackend`` over a ``PostgresPool``.
///
/// The server holds only what a vault file holds: sealed blobs, keyed hashes, ids, versions,
/// epochs and KDF costs. Writers take the vault's write lock first (a transaction-scoped advisory
/// lock keyed by the schema), so they run one after another as SQLite's `BEGIN IMMEDIATE` makes
/// them, and each of their statements reads what the writer before committed: a read-modify-write
/// never loses another's update. Readers take no lock and read one snapshot (`REPEATABLE READ`).
/// A transaction the server still aborts as a deadlock or serialization failure is rolled back and
/// surfaces as ``VaultError/conflict(_:)``, not run again: a write runs the caller's closures
/// (``Vault/update(_:_:)``'s), which must not run twice for one call.
///
/// A write that may run twice (``writeAhead(_:)``) first runs on what this process knows of the
/// rows from its own last write (``KnownRecordState``), with its statements collected instead of
/// sent, then sends them in one pipeline: the write lock, the writes, and the bump of the header's
/// `changes` counter from the value the state was true at, which fails the pipeline, rolling the
/// writes back, when the counter reads otherwise; committed together in one round trip. When another process wrote in between, the guard fails and nothing is
/// written; when the write needs a row this process does not know, nothing is sent. Either way it
/// runs again in a transaction.
final class PostgresVaultBackend: VaultBackend {
    private let pool: PostgresPool
    /// How long to wait for a pooled connection and for the write lock.
    private let lockTimeout: Duration
    /// What other processes commit, heard on the vault's channel by a connection of its own.
    private let changes: PostgresChangeFeed
    /// What this process knows of the rows, as its last write transaction left them, and the
    /// header's `changes` counter that is true at.
    private let known = Locked<(changes: Int64, state: KnownRecordState)?>(nil)
    /// How many writes run ahead committed in one round trip, and how many ran again in a
    /// transaction after their pipeline's guard or a statement failed.
    let writesAhead = Locked((committed: 0, rerun: 0))

    /// A backend; no connection is made until the first transaction.
    ///
    /// - Parameters:
    ///   - connectionString: A libpq connection string; its `search_path` picks the vault's schema.
    ///   - configuration: The lock timeout (``Vault/Configuration/busyTimeout``, also the wait for a
    ///     connection) and the statement timeout (0, no limit, when it is `nil`), which every
    ///     connection is opened with, and the pool's size.
    /// - Throws: ``PostgresError`` when the string cannot be parsed or the pool size is below 1.
    init(connectionString: String, configuration: Vault.Configuration) throws {
        let statementTimeout = configuration.statementTimeout.map(Self.milliseconds) ?? 0
        let parsed = try PostgresConnectionString(connectionString)
        // Both limits go in the connection's options, so no transaction spends a round trip on them,
        // and the pool need not reset a returned connection: the backend's transactions change no
        // session state.
        pool = try PostgresPool(
            parsed.withServerSetting("statement_timeout", "\(statementTimeout)")
                .withServerSetting("lock_timeout", "\(Self.milliseconds(configuration.busyTimeout))"),
            size: configuration.connections, connectTimeout: configuration.busyTimeout, resetsSessions: false)
        changes = PostgresChangeFeed(connectionString: parsed, connectTimeout: configuration.busyTimeout)
        lockTimeout = configuration.busyTimeout
    }

    deinit {
        changes.stop()
    }

    func read<Result>(_ body: (any BackendReadTransaction) throws -> Result) throws -> Result {
        try pool.withConnection(timeout: lockTimeout) { connection in
            try connection.transaction(isolation: .repeatableRead) { db in
                try body(PostgresBackendTransaction(db))
            }
        }
    }

    func write<Result>(_ body: (any BackendWriteTransaction) throws -> Result) throws -> Result {
        let (result, draft, changes) = try pool.withConnection(timeout: lockTimeout) { connection in
            try connection.transaction(isolation: .readCommitted) { db in
                try PostgresSchema.lockSchema(db)
                let draft = try startingState(db)
                let result = try body(PostgresBackendTransaction(db, known: draft))
                return (result, draft, try db.queryFirst(Self.bumpChanges)?.int8(0))
            }
        }
        if let changes { remember(draft, at: changes) }
        return result
    }

    /// What a write transaction, holding the write lock, starts from: what this process knows,
    /// when no other process has written since, so what the process knows grows write by write;
    /// else nothing.
    private func startingState(_ db: PostgresConnection) throws -> KnownRecordState {
        guard let (changes, base) = knownCopy(),
            try db.queryFirst("SELECT changes FROM vault_header WHERE singleton = 1")?.int8(0) == changes
        else { return KnownRecordState() }
        return base
    }

    func writeAhead<Result>(_ body: (any BackendWriteTransaction) throws -> Result) throws -> Result {
        if let (expected, draft) = knownCopy(),
            let result = try writeInOneRoundTrip(body, on: draft, expecting: expected)
        {
            return result
        }
        return try write(body)
    }

    /// Runs `body` on `draft` and sends its writes in one pipeline guarded by `expected`.
    ///
    /// - Returns: `nil` when nothing was written: `body` needed a row `draft` does not know, threw
    ///   (on rows that may be stale, so the transaction decides), or wrote nothing; or another
    ///   process wrote since (the guard failed) or a statement failed, which the transaction reports.
    /// - Throws: Storage errors sending the pipeline, which may or may not have committed.
    private func writeInOneRoundTrip<Result>(
        _ body: (any BackendWriteTransaction) throws -> Result, on draft: KnownRecordState, expecting expected: Int64
    ) throws -> Result? {
        let deferred = DeferredStatements()
        guard let result = try? body(PostgresBackendTransaction(deferred, known: draft, knownChanges: expected)),
            !deferred.statements.isEmpty
        else { return nil }
        let statements =
            [PostgresStatement(PostgresSchema.lockStatement)] + deferred.statements + [
                PostgresStatement(Self.bumpChangesIfUnchanged, [.int8(expected)], returnsRows: true)
            ]
        let answers: [[PostgresRow]]
        do {
            answers = try pool.withConnection(timeout: lockTimeout) { try $0.pipeline(statements) }
        } catch is PostgresPipelineFailure {
            known.withLock { if $0?.changes == expected { $0 = nil } }
            writesAhead.withLock { $0.rerun += 1 }
            return nil
        }
        guard let changes = try answers.last?.first?.int8(0) else { return nil }
        remember(draft, at: changes)
        writesAhead.withLock { $0.committed += 1 }
        return result
    }

    /// A copy of what this process knows, for a transaction to work on, with the counter it is
    /// true at.
    private func knownCopy() -> (changes: Int64, state: KnownRecordState)? {
        known.withLock { $0.map { ($0.changes, $0.state.copy()) } }
    }

    /// Keeps `draft` as what this process knows, unless a later write's state is already kept.
    private func remember(_ draft: KnownRecordState, at changes: Int64) {
        known.withLock { current in
            if (current?.changes ?? .min) < changes { current = (changes, draft) }
        }
    }

    /// Moves the change stamp readers compare and, at commit, wakes every process waiting on the
    /// vault's channel, if the transaction wrote anything (it then has a transaction id); returns
    /// the counter's new value then, no row otherwise. A write that found nothing to do, such as a
    /// refresh lease found taken, neither wakes the other waiters nor waits for the log to reach
    /// the disk.
    private static let bumpChanges =
        "WITH moved AS (UPDATE vault_header SET changes = changes + 1 WHERE singleton = 1 "
        + "AND pg_current_xact_id_if_assigned() IS NOT NULL RETURNING changes) "
        + "SELECT changes, pg_notify(\(PostgresSchema.changeChannel), changes::text)::text FROM moved"

    /// The last statement of a write run ahead: moves the change stamp and wakes the other
    /// processes as ``bumpChanges`` does, but only from the value `$1` the write was run on, and
    /// divides by zero otherwise, failing the pipeline, so that everything it wrote rolls back.
    /// The write lock, taken by the pipeline's first statement, makes the check final: no other
    /// writer can commit between it and the commit.
    static let bumpChangesIfUnchanged =
        "WITH moved AS (UPDATE vault_header SET changes = changes + 1 WHERE singleton = 1 AND changes = $1 "
        + "RETURNING changes) SELECT max(changes) + 0 * (1 / count(*)), "
        + "pg_notify(\(PostgresSchema.changeChannel), max(changes)::text)::text FROM moved"

    /// One statement outside a transaction block, so one snapshot and one round trip, instead of the
    /// five of a ``read(_:)`` transaction (begin, epoch, two look-ups, commit).
    func epochAndRows(lookups: [[UInt8]]) throws -> (epoch: UInt64, rows: [RecordRow])? {
        try pool.withConnection(timeout: lockTimeout) { db in try PostgresRecordStore(db).epochAndRows(lookups: lookups)
        }
    }

    func changeMark() -> UInt64 {
        changes.mark()
    }

    /// Wakes when any process commits a write to the vault, as its notification arrives.
    func waitForChange(since mark: UInt64, timeout: Duration) async {
        await changes.wait(since: mark, timeout: timeout)
    }

    func close() {
        changes.stop()
        pool.close()
    }

    /// A timeout in whole milliseconds, at least 1 (0 would mean no limit) and at most what
    /// `lock_timeout` and `statement_timeout` take.
    private static func milliseconds(_ timeout: Duration) -> Int64 {
        let (seconds, attoseconds) = timeout.components
        return max(1, min(seconds, Int64(Int32.max) / 1000) * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}

extension PostgresVaultBackend {
    /// Brings an existing vault's tables to the current schema version, under the schema's lock.
    ///
    /// - Throws: ``VaultError/notFound(_:)`` when the schema holds no vault,
    ///   ``VaultError/unsupportedFormat(_:)`` for tables newer than this library knows.
    func migrate() throws {
        try pool.withConnection(timeout: lockTimeout) { connection in
            try connection.transaction(isolation: .readCommitted) { db in
                try PostgresSchema.lockSchema(db)
                guard try PostgresSchema.hasVault(db) else {
                    let schema = try PostgresSchema.currentSchema(db)
                    throw VaultError.notFound("a vault in PostgreSQL schema \(schema)")
                }
                try PostgresSchema.migrate(db)
            }
        }
    }
}
