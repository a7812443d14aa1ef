import VaultStorage

/// One transaction of a ``PostgresVaultBackend``: its connection, while the transaction runs.
struct PostgresBackendTransaction: BackendWriteTransaction {
    /// The connection, inside the transaction.
    let db: PostgresConnection

    init(_ db: PostgresConnection) {
        self.db = db
    }

    var records: any RecordReader { PostgresRecordStore(db) }

    var recordStore: any RecordStore { PostgresRecordStore(db) }

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
        guard let row = try db.queryFirst("SELECT format_version FROM vault_header WHERE singleton = 1") else {
            throw VaultError.integrity("the vault header is missing")
        }
        return Int(try row.int8(0))
    }

    func epoch() throws -> UInt64 {
        guard let row = try db.queryFirst("SELECT epoch FROM vault_header WHERE singleton = 1") else {
            throw VaultError.integrity("the vault header is missing")
        }
        return UInt64(bitPattern: try row.int8(0))
    }

    func epochAndFormatVersion() throws -> (epoch: UInt64, formatVersion: Int) {
        guard let row = try db.queryFirst("SELECT epoch, format_version FROM vault_header WHERE singleton = 1") else {
            throw VaultError.integrity("the vault header is missing")
        }
        return (UInt64(bitPattern: try row.int8(0)), Int(try row.int8(1)))
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
        ChangeStamp(try db.queryFirst("SELECT changes FROM vault_header WHERE singleton = 1")?.int8(0) ?? -1)
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
        try db.run(
            "UPDATE vault_header SET format_version = $1, epoch = $2 WHERE singleton = 1",
            [.int8(Int64(formatVersion)), .int8(Int64(bitPattern: epoch))])
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
