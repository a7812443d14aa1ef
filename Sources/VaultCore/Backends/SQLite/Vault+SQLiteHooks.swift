import Foundation
import VaultCrypto
import VaultStorage

/// The test, benchmark and fuzzing hooks that reach into a vault file itself: SQLite only.
/// Package-internal, not public API.
extension Vault {
    /// The statements that create a vault's tables and indexes (`SQLiteSchema.createStatements`).
    package static var schemaForBenchmarking: String { SQLiteSchema.createStatements }

    /// Caps the file at `pages` database pages, so the next growing write fails exactly as on a
    /// full disk. For tests of the full-disk path only.
    package func limitFileSizeForTesting(pages: Int) throws {
        try fileDatabase(for: "a file size limit").write { try $0.limitPageCount(to: pages) }
    }

    /// Marks the file format version 2, drops the index tables and puts the digest back in its
    /// own table, for ``insertFormat2TokenRecordsForBenchmarking(_:policy:)``.
    func dropIndexForBenchmarking() throws {
        try Self.translatingErrors {
            try fileDatabase(for: "a format version 2 benchmark vault").write { db in
                try db.execute("DROP TABLE IF EXISTS record_index; DROP TABLE IF EXISTS record_index_state")
                try SQLiteSchema.moveDigestOutOfRecords(db)
                try SQLiteSchema.writeHeader(formatVersion: 2, epoch: try SQLiteSchema.epoch(db), db)
            }
        }
    }

    /// Rewrites the file as format version 4 wrote it, the vault-wide digest in its own `integrity`
    /// table (the only difference from version 5), so tests can open what a version 4 library left.
    package func rewriteAsFormatVersion4ForTesting() throws {
        try Self.translatingErrors {
            try fileDatabase(for: "a format version 4 test vault").write { db in
                try SQLiteSchema.moveDigestOutOfRecords(db)
                try SQLiteSchema.writeHeader(formatVersion: 4, epoch: try SQLiteSchema.epoch(db), db)
            }
        }
    }
}

extension Vault.Fuzzing {
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
            try db.execute(SQLiteSchema.createStatements)
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
            _ = try KeyRing(Vault.openSlot(sealed, with: material, vaultID: vaultID, epoch: 0).payload)
            return true
        } catch VaultError.invalidCredentials {
            return false
        }
    }
}
