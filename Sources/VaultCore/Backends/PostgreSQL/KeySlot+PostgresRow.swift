import VaultCrypto
import VaultStorage

/// A ``KeySlot`` as a row of a PostgreSQL vault's `key_slots` table: the columns of a vault file's.
extension KeySlot {
    func insert(into db: PostgresConnection) throws {
        try db.run(
            "INSERT INTO key_slots (\(Self.columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)", postgresValues)
    }

    /// Replaces the stored row with the same id by this one.
    func update(in db: PostgresConnection) throws {
        let changed = try db.run(
            "UPDATE key_slots SET kind = $2, scoped = $3, salt = $4, ops_limit = $5, mem_limit = $6, public_key = $7, "
                + "wrapped = $8, sealed_grant = $9, epoch = $10 WHERE slot_id = $1", postgresValues)
        guard changed == 1 else { throw VaultError.integrity("a key slot vanished during an update") }
    }

    private var postgresValues: [PostgresValue] {
        [
            .bytea(id), .int8(Int64(kind.rawValue)), .int8(isScoped ? 1 : 0), .bytea(salt),
            .int8(Int64(parameters.opsLimit)), .int8(Int64(parameters.memLimitBytes)), .bytea(publicKey),
            .bytea(wrapped), .bytea(grant), .int8(Int64(bitPattern: epoch)),
        ]
    }

    static func delete(id: [UInt8], from db: PostgresConnection) throws {
        let changed = try db.run("DELETE FROM key_slots WHERE slot_id = $1", [.bytea(id)])
        guard changed == 1 else { throw VaultError.invalidCredentials }  // removed meanwhile
    }

    /// All slots. A slot with an unknown kind is kept out (it cannot be opened by this version).
    static func all(in db: PostgresConnection) throws -> [KeySlot] {
        try db.query("SELECT \(columns) FROM key_slots ORDER BY slot_id").compactMap { row -> KeySlot? in
            guard let kind = Kind(rawValue: UInt8(truncatingIfNeeded: try row.int8(1))) else { return nil }
            return KeySlot(
                id: try row.bytea(0), kind: kind, isScoped: try row.int8(2) != 0, salt: try row.bytea(3),
                parameters: Argon2id.Parameters(
                    opsLimit: Int(try row.int8(4)), memLimitBytes: Int(try row.int8(5))),
                publicKey: row.isNull(6) ? [] : try row.bytea(6), wrapped: try row.bytea(7),
                grant: row.isNull(8) ? [] : try row.bytea(8),
                epoch: UInt64(bitPattern: row.isNull(9) ? 0 : try row.int8(9)))
        }
    }
}
