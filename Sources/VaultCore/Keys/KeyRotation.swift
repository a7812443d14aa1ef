import VaultCrypto

/// Moves a vault to a new key epoch, in the caller's write transaction: a new random master key
/// (and passcode root), every record re-sealed under it, every remaining key slot granted the new
/// epoch's payload, removed slots dropped, added slots granted, and the integrity digest rebuilt.
///
/// This is how an unlock is revoked: a removed or replaced slot is never granted the new epoch, so
/// its secret, even with an old copy of the file, opens only the old epoch's keys, and those open
/// nothing written or re-written afterwards. The backend commits all of it or none of it, so a crash
/// leaves the vault at the old epoch or the new one, never between.
struct KeyRotation {
    /// A slot to add, made for its material but not granted yet, and its groups when scoped.
    struct NewSlot {
        let slot: KeySlot
        let groups: Set<String>?
    }

    let vaultID: [UInt8]
    /// The keys of the current epoch, with full access.
    let current: KeyRing
    let device: DeviceSecret?

    /// Rotates, removing the slots `removing` and adding `adding`.
    ///
    /// - Returns: The new epoch's keys.
    /// - Throws: ``VaultError/integrity(_:)`` when the vault fails verification (re-keying would hide
    ///   the damage), ``VaultError/invalidArgument(_:)`` when a version 1 slot would be left behind or
    ///   no full-access slot would remain, ``VaultError/unavailableOnThisDevice`` for items bound to
    ///   another device, ``VaultError/storage(_:)`` when another process re-keyed meanwhile.
    func run(removing: Set<[UInt8]>, adding: [NewSlot], in db: any BackendWriteTransaction) throws -> KeyRing {
        guard current.masterKey != nil else {
            throw VaultError.accessDenied("re-keying the vault needs a full-access unlock")
        }
        guard try db.epoch() == current.epoch else {
            throw VaultError.storage("another process changed the key slots meanwhile; try again")
        }
        let records = db.recordStore
        let format = try db.formatVersion()
        let slots = try db.keySlots()
        let groups = [nil] + (try GroupDirectory.groups(in: records, keys: current, vaultID: vaultID)).sorted()
        let oldScopes = current.scopes(of: groups)
        let passcodeCode = Int64(Accessibility.whenPasscodeSetThisDeviceOnly.code)
        // Two passes over the records, a page at a time each (a vault of a million tokens is
        // gigabytes sealed): this one checks the digests, the second re-seals.
        var holdsPasscodeItems = false
        let generations: [[UInt8]: UInt64]
        do {
            var digests = try ScopedDigests(slots: slots, keys: current, groups: oldScopes)
            try records.forEachPage(limit: Vault.rowsPerPage) { page in
                try digests.add(page)
                holdsPasscodeItems =
                    holdsPasscodeItems
                    || page.contains { !$0.kind.isMetadata && $0.policyCode & 0xff == passcodeCode }
            }
            generations = try digests.check(in: records, keys: current, groups: oldScopes, vaultID: vaultID)
        } catch VaultError.integrity(let detail) {
            throw VaultError.integrity(
                "\(detail); re-keying would hide that, so run verify and restore a backup")
        }
        let remaining = slots.filter { !removing.contains($0.id) }
        guard !remaining.contains(where: \.isLegacy) else {
            throw VaultError.invalidArgument(
                "a key slot of format version 1 is left: unlock with it once (which upgrades it) or remove it first")
        }
        let kept = remaining + adding.map(\.slot)
        guard kept.contains(where: { !$0.isScoped }) else {
            throw VaultError.invalidArgument("this is the last key slot with full access")
        }
        guard kept.count <= VaultFormat.maximumSlotCount else {
            throw VaultError.invalidArgument("a vault holds at most \(VaultFormat.maximumSlotCount) key slots")
        }
        let hasPassphraseSlot = kept.contains { $0.kind.usesPassphrase }
        if hasPassphraseSlot, current.passcodeRoot == nil, holdsPasscodeItems {
            throw VaultError.invalidArgument(
                "unlock with a passphrase first: re-keying re-seals items only a passphrase unlock can read")
        }
        var scopes: [[UInt8]: Set<String>] = [:]
        for slot in remaining where slot.isScoped {
            guard let groups = try SlotScopes.groups(of: slot.id, in: records, keys: current, vaultID: vaultID) else {
                throw VaultError.integrity("a scoped key slot's access groups are not recorded")
            }
            scopes[slot.id] = groups
        }
        for added in adding { if let groups = added.groups { scopes[added.slot.id] = groups } }

        let next = try KeyRing(
            SlotPayload(
                masterKey: SymmetricKey(randomByteCount: SubkeyDerivation.masterKeyByteCount),
                passcodeRoot: hasPassphraseSlot ? SymmetricKey(randomByteCount: 32) : nil),
            epoch: current.epoch + 1)
        let remainingGranted = try remaining.map {
            try $0.granting(payload(for: $0, groups: scopes[$0.id], next), epoch: next.epoch, vaultID: vaultID)
        }
        let addedGranted = try adding.map {
            try $0.slot.granting(payload(for: $0.slot, groups: $0.groups, next), epoch: next.epoch, vaultID: vaultID)
        }
        let newScopes = next.scopes(of: groups)
        var newDigests = try ScopedDigests(slots: remainingGranted + addedGranted, keys: next, groups: newScopes)

        let reseal = RecordReseal(
            vaultID: vaultID, old: current, oldFormat: VaultFormat.sealingVersion, new: next, device: device,
            keepsPasscodeItems: hasPassphraseSlot, groups: groups, slotIDs: slots.map(\.id), droppedSlotIDs: removing,
            reindexes: format >= 3)
        try reseal.begin(in: records)
        var pending = RecordReseal.Pending()
        // Each page is opened and sealed again on the other cores while this thread writes the one
        // before.
        try records.forEachPage(limit: Vault.rowsPerPage, preparing: reseal.resealed) { resealed in
            try newDigests.add(reseal.write(resealed, in: records, pending: &pending))
        }
        try newDigests.add(reseal.resealMetadata(pending, in: records))
        for added in adding {
            guard let groups = added.groups else { continue }
            let row = try SlotScopes.row(groups, of: added.slot.id, keys: next, vaultID: vaultID)
            try records.insert(row)
            try newDigests.add([row])
        }

        for slot in slots where removing.contains(slot.id) { try db.deleteSlot(id: slot.id) }
        for granted in remainingGranted { try db.updateSlot(granted) }
        for granted in addedGranted { try db.insertSlot(granted) }
        try db.writeHeader(formatVersion: format, epoch: next.epoch)
        var nextGenerations: [[UInt8]: UInt64] = [[]: (generations[[]] ?? 0) + 1]
        for (scope, group) in oldScopes {
            if let newScope = next.scopeID(of: group) { nextGenerations[newScope] = (generations[scope] ?? 0) + 1 }
        }
        try newDigests.storeAll(
            into: records, generations: nextGenerations, keys: next, groups: newScopes, vaultID: vaultID)
        return next
    }

    private func payload(for slot: KeySlot, groups: Set<String>?, _ next: KeyRing) throws -> SlotPayload {
        try next.payload(
            scopedTo: slot.isScoped ? Set((groups ?? []).map(Optional.some)) : nil,
            includingPasscode: slot.kind.usesPassphrase)
    }
}
