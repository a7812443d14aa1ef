import VaultCrypto
import VaultStorage

/// A ``KeySlot`` as a row of a vault file's `key_slots` table.
extension KeySlot {
    static let columns = "slot_id, kind, scoped, salt, ops_limit, mem_limit, public_key, wrapped, sealed_grant, epoch"

    func insert(into db: SQLiteConnection) throws {
        try db.run("INSERT INTO key_slots (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", values)
    }

    /// Replaces the stored row with the same id by this one.
    func update(in db: SQLiteConnection) throws {
        try db.run(
            "UPDATE key_slots SET kind = ?2, scoped = ?3, salt = ?4, ops_limit = ?5, mem_limit = ?6, public_key = ?7, "
                + "wrapped = ?8, sealed_grant = ?9, epoch = ?10 WHERE slot_id = ?1", values)
        guard db.changes == 1 else { throw VaultError.integrity("a key slot vanished during an update") }
    }

    private var values: [SQLiteValue] {
        [
            .blob(id), .integer(Int64(kind.rawValue)), .integer(isScoped ? 1 : 0), .blob(salt),
            .integer(Int64(parameters.opsLimit)), .integer(Int64(parameters.memLimitBytes)), .blob(publicKey),
            .blob(wrapped), .blob(grant), .integer(Int64(bitPattern: epoch)),
        ]
    }

    static func delete(id: [UInt8], from db: SQLiteConnection) throws {
        try db.run("DELETE FROM key_slots WHERE slot_id = ?", [.blob(id)])
        guard db.changes == 1 else { throw VaultError.invalidCredentials }  // removed meanwhile
    }

    /// All slots. A slot with an unknown kind is kept out (it cannot be opened by this version).
    static func all(in db: SQLiteConnection) throws -> [KeySlot] {
        try db.query("SELECT \(columns) FROM key_slots ORDER BY slot_id") { row -> KeySlot? in
            guard let kind = Kind(rawValue: UInt8(truncatingIfNeeded: row.integer(1))) else { return nil }
            return KeySlot(
                id: row.blob(0), kind: kind, isScoped: row.integer(2) != 0, salt: row.blob(3),
                parameters: Argon2id.Parameters(opsLimit: Int(row.integer(4)), memLimitBytes: Int(row.integer(5))),
                publicKey: row.isNull(6) ? [] : row.blob(6), wrapped: row.blob(7),
                grant: row.isNull(8) ? [] : row.blob(8), epoch: UInt64(bitPattern: row.isNull(9) ? 0 : row.integer(9)))
        }.compactMap { $0 }
    }
}
