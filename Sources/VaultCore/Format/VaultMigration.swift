import VaultCrypto
import VaultStorage

/// Upgrades what format version 1 wrote, at the first unlock that can: the file (metadata rows
/// re-sealed to bind their look-up tags, key slots and epoch added to the digest) and each legacy
/// key slot (given a key pair, so later rotations can reach it).
///
/// Version 1 cannot be migrated without keys, so the work happens in the unlock that opens a legacy
/// slot, in one write transaction: another process sees the old file or the new one. Item rows keep
/// their sealed bytes, so items bound to another device survive the migration.
enum VaultMigration {
    /// Replaces the legacy slot `opened` with a version 2 slot for the same material (and migrates a
    /// version 1 file on the way).
    ///
    /// - Returns: The keys, or `nil` when another process changed the slot meanwhile (read the slots
    ///   again and retry).
    /// - Throws: ``VaultError/integrity(_:)`` when the file fails verification: migrating would
    ///   hide the damage.
    static func upgrade(
        _ opened: Vault.OpenedSlot, material: UnlockMaterial, database: SQLiteDatabase, vaultID: [UInt8]
    ) throws -> KeyRing? {
        let costs = KeyDerivation.custom(
            opsLimit: opened.slot.parameters.opsLimit, memLimitBytes: opened.slot.parameters.memLimitBytes)
        let (made, slotKeys) = try KeySlot.make(
            with: material, isScoped: opened.slot.isScoped, keyDerivation: costs, vaultID: vaultID)
        return try database.write { db -> KeyRing? in
            try VaultSchema.addVersion2Columns(db)
            let header = try VaultSchema.readHeader(db)
            let slots = try KeySlot.all(in: db)
            guard let stored = slots.first(where: { $0.id == opened.slot.id }), stored.isLegacy,
                stored.wrapped == opened.slot.wrapped
            else { return nil }
            let ring = try KeyRing(opened.payload, epoch: header.epoch)
            let state = try IntegrityState.load(from: db, keys: ring, vaultID: vaultID, format: header.formatVersion)
            var rows = try db.query("SELECT \(RecordRow.columns) FROM records", row: RecordRow.init)
            let digestSlots = header.formatVersion == 1 ? [] : slots
            guard IntegrityState.digest(of: rows, slots: digestSlots, keys: ring) == state.digest else {
                throw VaultError.integrity(
                    "the vault fails verification, and upgrading it would hide that; restore a backup")
            }
            if header.formatVersion == 1 {
                rows = try RecordReseal(
                    vaultID: vaultID, old: ring, oldFormat: 1, new: ring, device: nil, keepsPasscodeItems: true,
                    slotIDs: slots.map(\.id), droppedSlotIDs: []
                ).run(in: db, onlyMetadata: true)
            }
            let slot = try made.granting(opened.payload, epoch: header.epoch, vaultID: vaultID)
            try KeySlot.delete(id: stored.id, from: db)
            try slot.insert(into: db)
            if opened.payload.isScoped {
                let groups = Set(opened.payload.groupKeys.keys.compactMap(\.accessGroup))
                let row = try SlotScopes.row(groups, of: slot.id, keys: ring, vaultID: vaultID)
                try db.run("INSERT INTO records (\(RecordRow.columns)) VALUES (?, ?, ?, ?, ?, ?, ?)", row.values)
                rows.append(row)
            }
            try VaultSchema.writeHeader(formatVersion: VaultFormat.currentVersion, epoch: header.epoch, db)
            try IntegrityState(
                generation: state.generation + 1,
                digest: IntegrityState.digest(of: rows, slots: KeySlot.all(in: db), keys: ring)
            ).store(into: db, keys: ring, vaultID: vaultID)
            return try KeyRing(opened.payload, epoch: header.epoch, slot: .init(id: slot.id, keys: slotKeys))
        }
    }
}
