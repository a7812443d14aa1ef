import VaultStorage

/// One transaction of a ``SQLiteVaultBackend``: its connection, while the transaction runs.
struct SQLiteBackendTransaction: BackendWriteTransaction {
    /// The connection, inside the transaction.
    let db: SQLiteConnection

    init(_ db: SQLiteConnection) {
        self.db = db
    }

    var records: any RecordReader { SQLiteRecordStore(db) }

    var recordStore: any RecordStore { SQLiteRecordStore(db) }

    func header() throws -> VaultHeader {
        try SQLiteSchema.readHeader(db)
    }

    func formatVersion() throws -> Int {
        try SQLiteSchema.formatVersion(db)
    }

    func epoch() throws -> UInt64 {
        try SQLiteSchema.epoch(db)
    }

    func epochAndFormatVersion() throws -> (epoch: UInt64, formatVersion: Int) {
        try SQLiteSchema.epochAndFormatVersion(db)
    }

    func keySlots() throws -> [KeySlot] {
        try KeySlot.all(in: db)
    }

    func keySlotRowCount() throws -> Int {
        try db.query("SELECT count(*) FROM key_slots") { Int($0.integer(0)) }.first ?? 0
    }

    func changeStamp() throws -> ChangeStamp {
        ChangeStamp(try db.changeStamp())
    }

    /// SQLite's `PRAGMA integrity_check`, its first lines quoted as SQLite's.
    func structureProblems(limit: Int) throws -> String? {
        let problems = try db.integrityProblems(limit: limit)
        return problems.isEmpty ? nil : "SQLite: \(problems.joined(separator: "; "))"
    }

    func createVault(vaultID: [UInt8]) throws {
        try db.execute(SQLiteSchema.createStatements)
        try db.run(
            "INSERT INTO vault_header (singleton, format_version, vault_id) VALUES (1, ?, ?)",
            [.integer(Int64(VaultFormat.currentVersion)), .blob(vaultID)])
    }

    func writeHeader(formatVersion: Int, epoch: UInt64) throws {
        try SQLiteSchema.writeHeader(formatVersion: formatVersion, epoch: epoch, db)
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

    func addVersion2Columns() throws {
        try SQLiteSchema.addVersion2Columns(db)
    }

    func dropKindIndex() throws {
        try SQLiteSchema.dropKindIndex(db)
    }

    func addIndexTables() throws {
        try SQLiteSchema.addIndexTables(db)
    }
}
