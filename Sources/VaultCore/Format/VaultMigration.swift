import VaultCrypto

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
        _ opened: Vault.OpenedSlot, material: UnlockMaterial, backend: any VaultBackend, vaultID: [UInt8],
        device: DeviceSecret?
    ) throws -> KeyRing? {
        let costs = KeyDerivation.custom(
            opsLimit: opened.slot.parameters.opsLimit, memLimitBytes: opened.slot.parameters.memLimitBytes)
        let (made, slotKeys) = try KeySlot.make(
            with: material, isScoped: opened.slot.isScoped, keyDerivation: costs, vaultID: vaultID)
        return try backend.write { db -> KeyRing? in
            try db.addVersion2Columns()
            let header = try db.header()
            let slots = try db.keySlots()
            guard let stored = slots.first(where: { $0.id == opened.slot.id }), stored.isLegacy,
                stored.wrapped == opened.slot.wrapped
            else { return nil }
            let ring = try KeyRing(opened.payload, epoch: header.epoch)
            let slot = try made.granting(opened.payload, epoch: header.epoch, vaultID: vaultID)
            if header.formatVersion == 1 {
                try migrateFile(db, ring: ring, replacing: stored, with: slot, vaultID: vaultID, device: device)
            } else {
                var transaction = try RecordTransaction(db: db, keys: ring, vaultID: vaultID)
                try transaction.deleteSlot(stored)
                try transaction.insertSlot(slot)
                if opened.payload.isScoped {
                    let groups = Set(opened.payload.groupKeys.keys.compactMap(\.accessGroup))
                    try SlotScopes.set(groups, of: slot.id, in: &transaction)
                }
                try transaction.commit()
            }
            return try KeyRing(opened.payload, epoch: header.epoch, slot: .init(id: slot.id, keys: slotKeys))
        }
    }

    /// Migrates a version 1 file to version 2 with full-access keys, replacing the legacy slot used.
    private static func migrateFile(
        _ db: any BackendWriteTransaction, ring: KeyRing, replacing legacy: KeySlot, with slot: KeySlot,
        vaultID: [UInt8], device: DeviceSecret?
    ) throws {
        guard ring.scope == nil else {
            throw VaultError.accessDenied("upgrading a format version 1 vault needs a full-access unlock")
        }
        let records = db.recordStore
        // Two passes over the records, a page at a time each (a vault of a million tokens is
        // gigabytes sealed): this one checks the digest, the second gives the item rows their
        // scope and gathers the metadata rows, which are re-sealed after it.
        let generation: UInt64
        do {
            var digests = try ScopedDigests(slots: [], keys: ring, groups: [:])
            try records.forEachPage(limit: Vault.rowsPerPage) { try digests.add($0) }
            generation = try digests.check(in: records, keys: ring, groups: [:], vaultID: vaultID, format: 1)[[]] ?? 0
        } catch VaultError.integrity(let detail) {
            throw VaultError.integrity("\(detail); upgrading would hide that, so restore a backup")
        }
        let groups =
            [nil] + (try GroupDirectory.groups(in: records, keys: ring, vaultID: vaultID, format: 1)).sorted()
        try db.deleteSlot(id: legacy.id)
        try db.insertSlot(slot)
        let scopes = ring.scopes(of: groups)
        var migrated = try ScopedDigests(slots: db.keySlots(), keys: ring, groups: scopes)
        let reseal = RecordReseal(
            vaultID: vaultID, old: ring, oldFormat: 1, new: ring, device: device, keepsPasscodeItems: true,
            groups: groups, slotIDs: [legacy.id], droppedSlotIDs: [], reindexes: false)
        try reseal.begin(in: records)
        var pending = RecordReseal.Pending()
        try records.forEachPage(limit: Vault.rowsPerPage) { page in
            try migrated.add(reseal.migrateItems(page, in: records, pending: &pending))
        }
        try migrated.add(reseal.resealMetadata(pending, in: records))
        try db.writeHeader(formatVersion: 2, epoch: ring.epoch)
        try migrated.storeAll(
            into: records, generations: [[]: generation + 1], keys: ring, groups: scopes, vaultID: vaultID)
    }
}
