import VaultCrypto
import VaultStorage

/// The records and key slots of one write transaction: every insert, update and delete also
/// updates the integrity digest, which is re-sealed with the next generation when the transaction
/// commits.
struct RecordTransaction {
    let db: SQLiteConnection
    let keys: KeyRing
    let vaultID: [UInt8]
    private var state: IntegrityState

    init(db: SQLiteConnection, keys: KeyRing, vaultID: [UInt8]) throws {
        self.db = db
        self.keys = keys
        self.vaultID = vaultID
        state = try IntegrityState.load(from: db, keys: keys, vaultID: vaultID)
    }

    func row(lookup: [UInt8]) throws -> RecordRow? {
        try RecordRow.find(lookup: lookup, in: db)
    }

    func rows(kind: RecordKind) throws -> [RecordRow] {
        try db.query(
            "SELECT \(RecordRow.columns) FROM records WHERE kind = ?", [.integer(Int64(kind.rawValue))],
            row: RecordRow.init)
    }

    mutating func insert(_ row: RecordRow) throws {
        try db.run("INSERT INTO records (\(RecordRow.columns)) VALUES (?, ?, ?, ?, ?, ?, ?)", row.values)
        state.digest.add(row.integrityHash(keys: keys))
    }

    /// Replaces `old` with `new` (same record id, a later version).
    mutating func replace(_ old: RecordRow, with new: RecordRow) throws {
        precondition(old.id == new.id && new.version > old.version, "a replacement keeps the id and bumps the version")
        try db.run(
            "UPDATE records SET kind = ?2, lookup = ?3, domain = ?4, policy = ?5, version = ?6, sealed = ?7 WHERE record_id = ?1",
            new.values)
        guard db.changes == 1 else { throw VaultError.integrity("a record vanished during an update") }
        state.digest.subtract(old.integrityHash(keys: keys))
        state.digest.add(new.integrityHash(keys: keys))
    }

    mutating func delete(_ row: RecordRow) throws {
        try db.run("DELETE FROM records WHERE record_id = ?", [.blob(row.id)])
        guard db.changes == 1 else { throw VaultError.integrity("a record vanished during a delete") }
        state.digest.subtract(row.integrityHash(keys: keys))
    }

    mutating func insertSlot(_ slot: KeySlot) throws {
        try slot.insert(into: db)
        state.digest.add(slot.integrityHash(key: keys.integrityKey))
    }

    /// Seals the digest with the next generation. Call last, inside the same SQL transaction.
    mutating func commit() throws {
        state.generation += 1
        try state.store(into: db, keys: keys, vaultID: vaultID)
    }
}

extension RecordTransaction {
    /// Inserts or replaces a metadata row (sealed with the metadata key).
    mutating func upsertMetadata(
        _ plaintext: [UInt8], kind: RecordKind, lookup: [UInt8], replacing existing: RecordRow?
    ) throws {
        let row = try RecordRow.seal(
            plaintext, id: existing?.id ?? SecureRandom.bytes(count: VaultFormat.idByteCount), kind: kind,
            lookup: lookup, domainID: RecordRow.metadataDomainID, policyCode: 0,
            version: (existing?.version ?? 0) + 1, key: keys.metadataKey, vaultID: vaultID)
        if let existing {
            try replace(existing, with: row)
        } else {
            try insert(row)
        }
    }
}
