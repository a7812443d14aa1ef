/// Where a vault's rows live: the one thing ``Vault`` asks of its storage.
///
/// A backend hands out transactions and nothing else. Every transaction commits when its closure
/// returns and rolls back when it throws, so a vault never leaves half an operation behind; what a
/// transaction may touch (the header, the key slot rows, the records) is in
/// ``BackendReadTransaction`` and ``BackendWriteTransaction``. Sealing, hashing and the integrity
/// digests stay above the seam: a backend stores and returns opaque bytes, keyed hashes and clear
/// counters only, and never sees a key.
///
/// `SQLiteVaultBackend` (a vault file, or an in-memory vault) and `PostgresVaultBackend` (a vault a
/// fleet shares in a PostgreSQL schema) implement it, each in its own folder with its record store
/// and schema. What only a file can do (a backup copy, a write-ahead log checkpoint, a vault file's
/// permissions) is not part of this protocol: it lives beside the SQLite backend and says so.
///
/// A backend is `Sendable` and is shared by every task using the vault; the transaction objects it
/// passes to the closures are not, and must not escape them.
protocol VaultBackend: Sendable {
    /// Runs `body` on one consistent snapshot.
    ///
    /// - Parameter body: What to read; the transaction is valid only while it runs.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, and the backend's storage errors.
    func read<Result>(_ body: (any BackendReadTransaction) throws -> Result) throws -> Result

    /// Runs `body` in a write transaction that no other writer interleaves with: it commits on return
    /// and rolls back on throw.
    ///
    /// - Parameter body: What to read and write; the transaction is valid only while it runs.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, and the backend's storage errors.
    func write<Result>(_ body: (any BackendWriteTransaction) throws -> Result) throws -> Result

    /// ``write(_:)`` for a `body` that only reads and writes the vault and so may run more than
    /// once: a backend may first run it on what it already knows of the rows and commit its writes
    /// in one round trip, if no other writer came between, and otherwise runs it in a transaction.
    ///
    /// - Parameter body: What to read and write; what it returns is kept only from the run whose
    ///   writes committed.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws in the transaction, and the backend's storage errors.
    func writeAhead<Result>(_ body: (any BackendWriteTransaction) throws -> Result) throws -> Result

    /// The key epoch and the rows carrying any of `lookups`, from one snapshot and in one round trip:
    /// what a get by name reads, for a backend where each statement of a ``read(_:)`` transaction
    /// costs a round trip to a server.
    ///
    /// - Parameter lookups: The look-up tags to fetch.
    /// - Returns: `nil` when a ``read(_:)`` transaction costs no more (a file), so callers read as usual.
    /// - Throws: The backend's storage errors.
    func epochAndRows(lookups: [[UInt8]]) throws -> (epoch: UInt64, rows: [RecordRow])?

    /// A mark of the other processes' commits this process has heard of so far: take it before
    /// looking at what another process may change, then pass it to ``waitForChange(since:timeout:)``.
    ///
    /// - Returns: An opaque count; only its equality with a later mark means anything.
    func changeMark() -> UInt64

    /// Returns once another process may have committed a write after `mark`, or after `timeout`.
    ///
    /// A backend that hears of commits (PostgreSQL's notifications) returns as soon as one arrives;
    /// one that cannot (a file) returns after a short sleep, so callers always look again and bound
    /// their waits. Never fails.
    ///
    /// - Parameters:
    ///   - mark: What ``changeMark()`` returned before the caller looked.
    ///   - timeout: The longest to wait.
    func waitForChange(since mark: UInt64, timeout: Duration) async

    /// Releases the backend's connections after any transaction running on them ends; later
    /// transactions fail with a storage error. Never fails.
    func close()
}

extension VaultBackend {
    /// ``write(_:)``: a transaction is as cheap.
    func writeAhead<Result>(_ body: (any BackendWriteTransaction) throws -> Result) throws -> Result {
        try write(body)
    }

    /// `nil`: a ``read(_:)`` transaction is as cheap.
    func epochAndRows(lookups: [[UInt8]]) throws -> (epoch: UInt64, rows: [RecordRow])? {
        nil
    }
}
