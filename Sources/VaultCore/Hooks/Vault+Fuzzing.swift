import Foundation
import VaultCrypto
import VaultStorage

extension Vault {
    /// The decoders the vault runs on bytes it reads back, for the fuzz targets under `Fuzz/`.
    ///
    /// Each entry point decodes exactly as the vault does and, where that succeeds, encodes the value
    /// again, so a fuzz target can check that decoding and encoding agree. Package-internal, not
    /// public API.
    package enum Fuzzing {
        /// Decodes the plaintext of an item record (what its sealed blob opens to) and encodes it again.
        ///
        /// - Parameter bytes: The plaintext.
        /// - Returns: The decoded item name and the re-encoded plaintext.
        /// - Throws: ``VaultError`` when the bytes are not an item record.
        package static func reencodeItemEnvelope(_ bytes: [UInt8]) throws -> (name: String, encoded: [UInt8]) {
            let envelope = try ItemEnvelope(decoding: bytes)
            return (envelope.name, envelope.bytes)
        }

        /// Decodes the plaintext of an enrolled-factor record and encodes it again.
        ///
        /// - Parameter bytes: The plaintext.
        /// - Returns: The re-encoded plaintext.
        /// - Throws: ``VaultError`` when the bytes are not a factor record.
        package static func reencodeFactorRecord(_ bytes: [UInt8]) throws -> [UInt8] {
            try FactorRecord(decoding: bytes).bytes
        }

        /// Decodes a key slot's payload (what its wrapped blob opens to), builds the key ring it
        /// unlocks, and encodes the payload again.
        ///
        /// - Parameter bytes: The payload.
        /// - Returns: Whether the payload is scoped to access groups, and its re-encoding.
        /// - Throws: ``VaultError`` when the bytes are not a slot payload.
        package static func reencodeSlotPayload(_ bytes: SecureBytes) throws -> (isScoped: Bool, encoded: SecureBytes) {
            let payload = try SlotPayload(decoding: bytes)
            _ = try KeyRing(payload)
            return (payload.isScoped, payload.encoded())
        }

        /// Stores one `key_slots` row with these column values in an in-memory vault schema, reads
        /// the slots back as ``Vault/open(at:unlock:configuration:)`` does, and opens them with a
        /// key file as `open` does.
        ///
        /// The row has the format version 1 shape (no key pair), the shape every vault written before
        /// key rotation has until its first unlock. Each slot read back is first given `payload` sealed under the key file's key with the
        /// slot's own associated data, so a key-file slot opens and its payload is decoded.
        /// - Parameters:
        ///   - kind: The `kind` column.
        ///   - scoped: The `scoped` column.
        ///   - salt: The `salt` column.
        ///   - opsLimit: The `ops_limit` column.
        ///   - memLimit: The `mem_limit` column.
        ///   - payload: The slot payload to seal into the `wrapped` column.
        ///   - keyFile: The key file to open the slot with.
        /// - Returns: Whether a slot opened into a key ring.
        /// - Throws: ``VaultError`` or ``StorageError`` when the row cannot be stored or read, or a slot
        ///   is malformed.
        package static func openKeySlotRow(
            kind: Int64, scoped: Int64, salt: [UInt8], opsLimit: Int64, memLimit: Int64, payload: SecureBytes,
            keyFile: URL
        ) throws -> Bool {
            let material = try UnlockMaterial(.keyFile(keyFile), allowsInsecurePermissions: false)
            let vaultID = [UInt8](repeating: 0x56, count: VaultFormat.idByteCount)
            let database = try SQLiteDatabase(path: ":memory:", mode: .memory, busyTimeout: .zero)
            try database.write { db in
                try db.execute(VaultSchema.createStatements)
                try db.run(
                    "INSERT INTO key_slots (slot_id, kind, scoped, salt, ops_limit, mem_limit, wrapped) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [
                        .blob([UInt8](repeating: 0x53, count: VaultFormat.idByteCount)), .integer(kind),
                        .integer(scoped), .blob(salt), .integer(opsLimit), .integer(memLimit), .blob([]),
                    ])
            }
            let sealed = try database.read { try KeySlot.all(in: $0) }.map { slot in
                let key = try material.keyEncryptionKey(salt: slot.salt, parameters: slot.parameters)
                let box = try XChaCha20Poly1305.seal(
                    payload, using: key, authenticating: slot.associatedData(vaultID: vaultID))
                return KeySlot(
                    id: slot.id, kind: slot.kind, isScoped: slot.isScoped, salt: slot.salt,
                    parameters: slot.parameters, publicKey: [], wrapped: box.combined, grant: [], epoch: 0)
            }
            do {
                _ = try KeyRing(openSlot(sealed, with: material, vaultID: vaultID, epoch: 0).payload)
                return true
            } catch VaultError.invalidCredentials {
                return false
            }
        }
    }
}
