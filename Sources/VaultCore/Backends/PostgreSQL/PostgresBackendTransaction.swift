import VaultStorage

/// One transaction of a ``PostgresVaultBackend``: its connection while the transaction runs, or,
/// for a write run ahead of its transaction, the ``DeferredStatements`` collecting its writes.
struct PostgresBackendTransaction: BackendWriteTransaction {
    /// Where statements go.
    private let runner: any PostgresStatementRunner
    /// What a write transaction knows of the rows (``KnownRecordState``); `nil` for a read.
    private let known: KnownRecordState?
    /// The header's `changes` counter `known` is true at, for a write run ahead, which cannot read it.
    private let knownChanges: Int64?

    /// A transaction over `runner`, a connection inside a transaction or deferred statements.
    ///
    /// - Parameters:
    ///   - known: What a write transaction knows; `nil` for a read.
    ///   - knownChanges: The `changes` counter `known` is true at, for a write run ahead.
    init(_ runner: any PostgresStatementRunner, known: KnownRecordState? = nil, knownChanges: Int64? = nil) {
        self.runner = runner
        self.known = known
        self.knownChanges = knownChanges
    }

    /// The connection, for what only a transaction on the server does (key slots, the schema).
    ///
    /// - Throws: ``DeferredStatements/CannotRead`` in a write run ahead: it runs again in a
    ///   transaction.
    private var db: PostgresConnection {
        get throws {
            guard let connection = runner as? PostgresConnection else { throw DeferredStatements.CannotRead() }
            return connection
        }
    }

    var records: any RecordReader { PostgresRecordStore(runner, known: known) }

    var recordStore: any RecordStore { PostgresRecordStore(runner, known: known) }

    func header() throws -> VaultHeader {
        guard
            let row = try db.queryFirst(
                "SELECT format_version, vault_id, epoch FROM vault_header WHERE singleton = 1")
        else { throw VaultError.integrity("the vault header is missing") }
        return try VaultHeader(
            formatVersion: Int(try row.int8(0)), vaultID: try row.bytea(1),
            epoch: UInt64(bitPattern: try row.int8(2))
        ).validated()
    }

    func formatVersion() throws -> Int {
        try epochAndFormatVersion().formatVersion
    }

    func epoch() throws -> UInt64 {
        try epochAndFormatVersion().epoch
    }

    func epochAndFormatVersion() throws -> (epoch: UInt64, formatVersion: Int) {
        if let header = known?.header { return header }
        guard let row = try runner.queryFirst("SELECT epoch, format_version FROM vault_header WHERE singleton = 1")
        else { throw VaultError.integrity("the vault header is missing") }
        let header = (UInt64(bitPattern: try row.int8(0)), Int(try row.int8(1)))
        known?.header = header
        return header
    }

    func keySlots() throws -> [KeySlot] {
        try KeySlot.all(in: db)
    }

    func keySlotRowCount() throws -> Int {
        Int(try db.queryFirst("SELECT count(*) FROM key_slots")?.int8(0) ?? 0)
    }

    /// The header's `changes` counter, which every write transaction bumps as it takes the vault's
    /// write lock.
    func changeStamp() throws -> ChangeStamp {
        if let changes = knownChanges, runner is DeferredStatements { return ChangeStamp(changes) }
        return ChangeStamp(try runner.queryFirst("SELECT changes FROM vault_header WHERE singleton = 1")?.int8(0) ?? -1)
    }

    /// `nil`: the server keeps its own pages and indexes sound, and checking them (`amcheck`) needs
    /// an extension and rights a vault's role does not have. The digests still cover every row.
    func structureProblems(limit: Int) throws -> String? {
        nil
    }

    func createVault(vaultID: [UInt8]) throws {
        try PostgresSchema.lockSchema(db)
        guard try !PostgresSchema.hasVault(db) else {
            throw VaultError.alreadyExists(
                "a vault in PostgreSQL schema \(try PostgresSchema.currentSchema(db))")
        }
        try PostgresSchema.migrate(db)
        try db.run(
            "INSERT INTO vault_header (singleton, format_version, vault_id) VALUES (1, $1, $2)",
            [.int8(Int64(VaultFormat.currentVersion)), .bytea(vaultID)])
    }

    func writeHeader(formatVersion: Int, epoch: UInt64) throws {
        try runner.run(
            "UPDATE vault_header SET format_version = $1, epoch = $2 WHERE singleton = 1",
            [.int8(Int64(formatVersion)), .int8(Int64(bitPattern: epoch))])
        known?.header = (epoch, formatVersion)
    }

    func insertSlot(_ slot: KeySlot) throws {
        try slot.insert(into: db)
    }

    func updateSlot(_ slot: KeySlot) throws {
        try slot.update(in: db)
    }

    func deleteSlot(id: [UInt8]) throws {
        try KeySlot.delete(id: id, from: db)
    }

    /// Nothing: a PostgreSQL vault is created at the current format, so never at version 1.
    func addVersion2Columns() throws {}

    /// Nothing: a PostgreSQL vault is created at the current format, with its index.
    func dropKindIndex() throws {}

    /// Nothing: a PostgreSQL vault is created at the current format, with its index.
    func addIndexTables() throws {}
}
