import VaultCrypto
import VaultStorage

/// One way into the vault: the slot payload (master key) sealed under a key encryption key.
///
/// As in LUKS, several slots can wrap the same master key; changing a passphrase re-wraps one slot
/// and never re-encrypts a record. The slot's kind, salt and KDF costs are bound into the
/// associated data, so editing them makes the slot fail to open.
struct KeySlot {
    enum Kind: UInt8 {
        case passphrase = 1
        case keyFile = 2
        case composite = 3

        var usesPassphrase: Bool { self != .keyFile }
    }

    /// The first payload byte: what follows. `1`: the 32-byte master key.
    static let fullAccessPayload: UInt8 = 1

    let id: [UInt8]
    let kind: Kind
    let salt: [UInt8]
    /// Argon2id costs; zero for key-file slots, which use no KDF.
    let parameters: Argon2id.Parameters
    let wrapped: [UInt8]

    /// Makes a new slot for `material` that wraps `masterKey`.
    static func make(
        wrapping masterKey: SymmetricKey, with material: UnlockMaterial,
        keyDerivation: KeyDerivation, vaultID: [UInt8]
    ) throws -> KeySlot {
        let parameters =
            material.slotKind.usesPassphrase
            ? keyDerivation.parameters : Argon2id.Parameters(opsLimit: 0, memLimitBytes: 0)
        if material.slotKind.usesPassphrase { try KeyDerivation.checkBounds(parameters) }
        let id = SecureRandom.bytes(count: VaultFormat.idByteCount)
        let salt = SecureRandom.bytes(count: Argon2id.saltByteCount)
        let kek = try material.keyEncryptionKey(salt: salt, parameters: parameters)
        let payload = SecureBytes(count: 1 + masterKey.byteCount) { out in
            out[0] = fullAccessPayload
            masterKey.withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: out[1...]).copyMemory(from: $0)
            }
        }
        let unsealed = KeySlot(id: id, kind: material.slotKind, salt: salt, parameters: parameters, wrapped: [])
        let box = try XChaCha20Poly1305.seal(
            payload, using: kek, authenticating: unsealed.associatedData(vaultID: vaultID))
        return KeySlot(id: id, kind: material.slotKind, salt: salt, parameters: parameters, wrapped: box.combined)
    }

    /// Opens the slot: the master key, or `nil` when the material is not this slot's.
    func unwrap(with material: UnlockMaterial, vaultID: [UInt8]) throws -> SymmetricKey? {
        guard material.slotKind == kind else { return nil }
        let kek = try material.keyEncryptionKey(salt: salt, parameters: parameters)
        guard let box = try? XChaCha20Poly1305.SealedBox(combined: wrapped),
            let payload = try? XChaCha20Poly1305.openSecure(
                box, using: kek, authenticating: associatedData(vaultID: vaultID))
        else { return nil }
        let isFull = payload.withUnsafeBytes { $0.count == 33 && $0[0] == Self.fullAccessPayload }
        guard isFull else { throw VaultError.unsupportedFormat("a key slot has an unknown payload type") }
        let master = SecureBytes(count: 32) { out in
            payload.withUnsafeBytes { out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[1...])) }
        }
        return SymmetricKey(secureBytes: master)
    }

    func associatedData(vaultID: [UInt8]) -> [UInt8] {
        var writer = ByteWriter()
        writer.append(raw: VaultFormat.Tag.keySlot)
        writer.append(UInt16(VaultFormat.currentVersion))
        writer.append(raw: vaultID)
        writer.append(raw: id)
        writer.append(kind.rawValue)
        writer.append(lengthPrefixed: salt)
        writer.append(UInt64(parameters.opsLimit))
        writer.append(UInt64(parameters.memLimitBytes))
        return writer.bytes
    }

    // MARK: Rows

    func insert(into db: SQLiteConnection) throws {
        try db.run(
            "INSERT INTO key_slots (slot_id, kind, salt, ops_limit, mem_limit, wrapped) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .blob(id), .integer(Int64(kind.rawValue)), .blob(salt),
                .integer(Int64(parameters.opsLimit)), .integer(Int64(parameters.memLimitBytes)), .blob(wrapped),
            ])
    }

    static func delete(id: [UInt8], from db: SQLiteConnection) throws {
        try db.run("DELETE FROM key_slots WHERE slot_id = ?", [.blob(id)])
    }

    /// All slots. A slot with an unknown kind is kept out (it cannot be opened by this version).
    static func all(in db: SQLiteConnection) throws -> [KeySlot] {
        try db.query("SELECT slot_id, kind, salt, ops_limit, mem_limit, wrapped FROM key_slots ORDER BY slot_id") {
            row -> KeySlot? in
            guard let kind = Kind(rawValue: UInt8(truncatingIfNeeded: row.integer(1))) else { return nil }
            return KeySlot(
                id: row.blob(0), kind: kind, salt: row.blob(2),
                parameters: Argon2id.Parameters(
                    opsLimit: Int(row.integer(3)), memLimitBytes: Int(row.integer(4))),
                wrapped: row.blob(5))
        }.compactMap { $0 }
    }
}
