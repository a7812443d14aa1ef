import VaultCrypto
import VaultStorage

/// One way into the vault: a ``SlotPayload`` sealed under a key encryption key.
///
/// As in LUKS, several slots can wrap the same master key; changing a passphrase re-wraps one slot
/// and never re-encrypts a record. The slot's kind, scope flag, salt and KDF costs are bound into
/// the associated data, so editing them makes the slot fail to open.
struct KeySlot {
    enum Kind: UInt8 {
        case passphrase = 1
        case keyFile = 2
        case composite = 3

        var usesPassphrase: Bool { self != .keyFile }
    }

    let id: [UInt8]
    let kind: Kind
    /// Whether the slot grants only some access groups (shown in clear so slots can be listed).
    let isScoped: Bool
    let salt: [UInt8]
    /// Argon2id costs; zero for key-file slots, which use no KDF.
    let parameters: Argon2id.Parameters
    let wrapped: [UInt8]

    /// Makes a new slot for `material` that wraps `payload`.
    static func make(
        wrapping payload: SlotPayload, with material: UnlockMaterial, keyDerivation: KeyDerivation, vaultID: [UInt8]
    ) throws -> KeySlot {
        let parameters =
            material.slotKind.usesPassphrase
            ? keyDerivation.parameters : Argon2id.Parameters(opsLimit: 0, memLimitBytes: 0)
        if material.slotKind.usesPassphrase { try KeyDerivation.checkBounds(parameters) }
        let unsealed = KeySlot(
            id: SecureRandom.bytes(count: VaultFormat.idByteCount), kind: material.slotKind,
            isScoped: payload.isScoped, salt: SecureRandom.bytes(count: Argon2id.saltByteCount),
            parameters: parameters, wrapped: [])
        let kek = try material.keyEncryptionKey(salt: unsealed.salt, parameters: parameters)
        let box = try XChaCha20Poly1305.seal(
            payload.encoded(), using: kek, authenticating: unsealed.associatedData(vaultID: vaultID))
        return KeySlot(
            id: unsealed.id, kind: unsealed.kind, isScoped: unsealed.isScoped, salt: unsealed.salt,
            parameters: parameters, wrapped: box.combined)
    }

    /// Opens the slot: its payload, or `nil` when the material is not this slot's.
    ///
    /// A slot whose salt is not 16 bytes (truncated or padded in the file) is a slot that does not
    /// open, like any other tampered slot: `nil`, so that another intact slot can still be tried and
    /// the caller reports ``VaultError/invalidCredentials`` rather than a crypto-layer length error.
    func unwrap(with material: UnlockMaterial, vaultID: [UInt8]) throws -> SlotPayload? {
        guard material.slotKind == kind, salt.count == Argon2id.saltByteCount else { return nil }
        let kek = try material.keyEncryptionKey(salt: salt, parameters: parameters)
        guard let box = try? XChaCha20Poly1305.SealedBox(combined: wrapped),
            let payload = try? XChaCha20Poly1305.openSecure(
                box, using: kek, authenticating: associatedData(vaultID: vaultID))
        else { return nil }
        let decoded = try SlotPayload(decoding: payload)
        guard decoded.isScoped == isScoped else { throw VaultError.integrity("a key slot's scope flag is wrong") }
        return decoded
    }

    func associatedData(vaultID: [UInt8]) -> [UInt8] {
        var writer = ByteWriter()
        writer.append(raw: VaultFormat.Tag.keySlot)
        writer.append(UInt16(VaultFormat.currentVersion))
        writer.append(raw: vaultID)
        writer.append(raw: id)
        writer.append(kind.rawValue)
        writer.append(UInt8(isScoped ? 1 : 0))
        writer.append(lengthPrefixed: salt)
        // The row's integers as stored, whatever their sign: a slot edited to a negative cost then fails
        // to open like any other edited slot, rather than trapping on the conversion.
        writer.append(UInt64(truncatingIfNeeded: parameters.opsLimit))
        writer.append(UInt64(truncatingIfNeeded: parameters.memLimitBytes))
        return writer.bytes
    }

    // MARK: Rows

    func insert(into db: SQLiteConnection) throws {
        try db.run(
            "INSERT INTO key_slots (slot_id, kind, scoped, salt, ops_limit, mem_limit, wrapped) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                .blob(id), .integer(Int64(kind.rawValue)), .integer(isScoped ? 1 : 0), .blob(salt),
                .integer(Int64(parameters.opsLimit)), .integer(Int64(parameters.memLimitBytes)), .blob(wrapped),
            ])
    }

    static func delete(id: [UInt8], from db: SQLiteConnection) throws {
        try db.run("DELETE FROM key_slots WHERE slot_id = ?", [.blob(id)])
    }

    /// All slots. A slot with an unknown kind is kept out (it cannot be opened by this version).
    static func all(in db: SQLiteConnection) throws -> [KeySlot] {
        try db.query(
            "SELECT slot_id, kind, scoped, salt, ops_limit, mem_limit, wrapped FROM key_slots ORDER BY slot_id"
        ) {
            row -> KeySlot? in
            guard let kind = Kind(rawValue: UInt8(truncatingIfNeeded: row.integer(1))) else { return nil }
            return KeySlot(
                id: row.blob(0), kind: kind, isScoped: row.integer(2) != 0, salt: row.blob(3),
                parameters: Argon2id.Parameters(opsLimit: Int(row.integer(4)), memLimitBytes: Int(row.integer(5))),
                wrapped: row.blob(6))
        }.compactMap { $0 }
    }
}
