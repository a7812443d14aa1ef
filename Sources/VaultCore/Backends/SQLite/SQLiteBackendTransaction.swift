import VaultStorage

/// One transaction of a ``SQLiteVaultBackend``: its connection, while the transaction runs.
struct SQLiteBackendTransaction: BackendWriteTransaction {
    /// The connection, inside the transaction.
    let db: SQLiteConnection
    /// What a write transaction knows of the rows (``KnownRecordState``); `nil` for a read.
    private let known: KnownRecordState?

    /// A transaction on `db`.
    ///
    /// - Parameter known: What a write transaction knows; `nil` for a read.
    init(_ db: SQLiteConnection, known: KnownRecordState? = nil) {
        self.db = db
        self.known = known
    }

    var records: any RecordReader { SQLiteRecordStore(db, known: known) }

    var recordStore: any RecordStore { SQLiteRecordStore(db, known: known) }

    func header() throws -> VaultHeader {
        try SQLiteSchema.readHeader(db)
    }

    /// The format version, read alone: a format version 1 file has no epoch to read with it.
    func formatVersion() throws -> Int {
        try known?.header?.formatVersion ?? SQLiteSchema.formatVersion(db)
    }

    func epoch() throws -> UInt64 {
        try known?.header?.epoch ?? SQLiteSchema.epoch(db)
    }

    func epochAndFormatVersion() throws -> (epoch: UInt64, formatVersion: Int) {
        if let header = known?.header { return header }
        let header = try SQLiteSchema.epochAndFormatVersion(db)
        known?.header = header
        return header
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
        known?.forgetAll()
        try db.execute(SQLiteSchema.createStatements)
        try db.run(
            "INSERT INTO vault_header (singleton, format_version, vault_id) VALUES (1, ?, ?)",
            [.integer(Int64(VaultFormat.currentVersion)), .blob(vaultID)])
    }

    func writeHeader(formatVersion: Int, epoch: UInt64) throws {
        try SQLiteSchema.writeHeader(formatVersion: formatVersion, epoch: epoch, db)
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

    func addVersion2Columns() throws {
        known?.forgetAll()
        try SQLiteSchema.addVersion2Columns(db)
    }

    func dropKindIndex() throws {
        known?.forgetAll()
        try SQLiteSchema.dropKindIndex(db)
    }

    func addIndexTables() throws {
        known?.forgetAll()
        try SQLiteSchema.addIndexTables(db)
    }
}
