import VaultCrypto

extension Vault {
    /// Replaces the key slot that `old` opens with one for `new`, and revokes `old`: the vault moves
    /// to a new master key in the same transaction, every record is re-sealed under it, and every
    /// other slot is granted the new key. `old`, even with an old copy of the file, opens nothing
    /// written or re-written afterwards.
    ///
    /// If this removes the vault's last passphrase slot, the `whenPasscodeSetThisDeviceOnly` items
    /// are destroyed in the same transaction (their key lived only in passphrase slots).
    /// - Parameters:
    ///   - old: Material that opens an existing slot.
    ///   - new: The replacement material (a passphrase, key file, or both).
    ///   - keyDerivation: Argon2id costs for the new slot; by default the old slot's when it had a
    ///     passphrase, else `.moderate`.
    /// - Throws: ``VaultError/invalidCredentials`` when `old` opens no slot,
    ///   ``VaultError/invalidArgument(_:)`` for an empty new passphrase or while a format version 1
    ///   slot is left, ``VaultError/accessDenied(_:)`` when `old` is a scoped slot and this vault is
    ///   not unlocked with full access, ``VaultError/unavailableOnThisDevice`` when the vault holds
    ///   items bound to another device, and the errors of ``open(at:unlock:configuration:)``.
    public func changeUnlock(from old: VaultUnlock, to new: VaultUnlock, keyDerivation: KeyDerivation? = nil) throws {
        try Self.translatingErrors {
            let oldMaterial = try UnlockMaterial(
                old, allowsInsecurePermissions: configuration.allowsInsecurePermissions)
            let newMaterial = try UnlockMaterial(
                new, allowsInsecurePermissions: configuration.allowsInsecurePermissions)
            try newMaterial.checkStrength()
            let opened = try openCurrentSlot(with: oldMaterial)
            let costs =
                keyDerivation
                ?? (opened.slot.kind.usesPassphrase
                    ? .custom(
                        opsLimit: opened.slot.parameters.opsLimit, memLimitBytes: opened.slot.parameters.memLimitBytes)
                    : .moderate)
            let (made, madeKeys) = try KeySlot.make(
                with: newMaterial, isScoped: opened.slot.isScoped, keyDerivation: costs, vaultID: vaultID)
            let groups = opened.payload.isScoped ? Set(opened.payload.groupKeys.keys.compactMap(\.accessGroup)) : nil
            try rotateKeys(
                from: opened, removing: [opened.slot.id], adding: [KeyRotation.NewSlot(slot: made, groups: groups)],
                replacement: KeyRing.SlotAccess(id: made.id, keys: madeKeys))
        }
    }

    /// Adds a key slot, optionally scoped to some access groups.
    ///
    /// A scoped slot is granted only those groups' keys (never the master key): a process unlocked
    /// through it reads and writes those groups and gets ``VaultError/accessDenied(_:)`` for the
    /// rest. Needs a full-access unlock. Adding revokes nothing, so the keys are not rotated.
    /// - Parameters:
    ///   - unlock: The new slot's material.
    ///   - keyDerivation: Argon2id costs for a passphrase; `.moderate` by default.
    ///   - accessGroups: The groups to grant, or `nil` for full access.
    /// - Throws: ``VaultError/locked`` without a full-access unlock, ``VaultError/invalidArgument(_:)``
    ///   for an empty passphrase, group list or group name, or a vault that already has
    ///   32 slots (the most a vault holds).
    public func addUnlock(
        _ unlock: VaultUnlock, keyDerivation: KeyDerivation = .moderate, accessGroups: Set<String>? = nil
    ) throws {
        try Self.translatingErrors {
            let material = try UnlockMaterial(
                unlock, allowsInsecurePermissions: configuration.allowsInsecurePermissions)
            try material.checkStrength()
            if let accessGroups {
                guard !accessGroups.isEmpty else { throw VaultError.invalidArgument("a scoped slot needs a group") }
                try accessGroups.forEach(Self.checkGroupName)
            }
            let held = try unlockedKeys()
            guard held.masterKey != nil else { throw VaultError.locked }
            let (made, _) = try KeySlot.make(
                with: material, isScoped: accessGroups != nil, keyDerivation: keyDerivation, vaultID: vaultID)
            let added = try backend.write { db -> KeyRing in
                var keys = try currentKeys(held, in: db)
                let slots = try db.keySlots()
                guard slots.count < VaultFormat.maximumSlotCount else {
                    throw VaultError.invalidArgument("a vault holds at most \(VaultFormat.maximumSlotCount) key slots")
                }
                if material.slotKind.usesPassphrase && keys.passcodeRoot == nil {
                    guard !slots.contains(where: \.kind.usesPassphrase) else {
                        throw VaultError.invalidArgument("unlock with a passphrase to add another passphrase slot")
                    }
                    // The first passphrase slot brings the passcode class into being.
                    keys = try KeyRing(
                        SlotPayload(masterKey: keys.masterKey, passcodeRoot: SymmetricKey(randomByteCount: 32)),
                        epoch: keys.epoch, slot: keys.slot)
                }
                let payload = try keys.payload(
                    scopedTo: accessGroups.map { Set($0.map(Optional.some)) },
                    includingPasscode: material.slotKind.usesPassphrase)
                var transaction = try RecordTransaction(db: db, keys: keys, vaultID: vaultID)
                try transaction.insertSlot(made.granting(payload, epoch: keys.epoch, vaultID: vaultID))
                if let accessGroups {
                    try SlotScopes.set(accessGroups, of: made.id, in: &transaction)
                    for group in accessGroups { try GroupDirectory.add(group, in: &transaction) }
                }
                try transaction.commit()
                return keys
            }
            session.withLock { if $0.keys != nil && !$0.ended { $0.keys = added } }
        }
    }

    /// Removes the key slot that `unlock` opens, and revokes it: the vault moves to a new master key
    /// as in ``changeUnlock(from:to:keyDerivation:)``.
    ///
    /// Removing the last passphrase slot destroys the `whenPasscodeSetThisDeviceOnly` items.
    /// - Parameter unlock: Material that opens the slot to remove.
    /// - Throws: ``VaultError/invalidCredentials``; ``VaultError/invalidArgument(_:)`` when it is the
    ///   last slot with full access (the vault could never be opened again);
    ///   ``VaultError/accessDenied(_:)`` when it is a scoped slot and this vault is not unlocked with
    ///   full access.
    public func removeUnlock(_ unlock: VaultUnlock) throws {
        try Self.translatingErrors {
            let material = try UnlockMaterial(
                unlock, allowsInsecurePermissions: configuration.allowsInsecurePermissions)
            let opened = try openCurrentSlot(with: material)
            try rotateKeys(from: opened, removing: [opened.slot.id], adding: [], replacement: nil)
        }
    }

    /// The key slots, without anything secret. Works locked.
    ///
    /// - Returns: Every slot this version can open.
    /// - Throws: ``VaultError/storage(_:)``.
    public func keySlots() throws -> [KeySlotInfo] {
        try Self.translatingErrors {
            try backend.read { try $0.keySlots() }.map { slot in
                let kind: KeySlotInfo.Kind =
                    switch slot.kind {
                    case .passphrase: .passphrase
                    case .keyFile: .keyFile
                    case .composite: .composite
                    }
                return KeySlotInfo(
                    id: slot.id.map { String(format: "%02x", $0) }.joined(), kind: kind, isScoped: slot.isScoped,
                    keyDerivation: slot.kind.usesPassphrase
                        ? .custom(opsLimit: slot.parameters.opsLimit, memLimitBytes: slot.parameters.memLimitBytes)
                        : nil)
            }
        }
    }

    /// The slot `material` opens in the current epoch.
    private func openCurrentSlot(with material: UnlockMaterial) throws -> OpenedSlot {
        let (epoch, slots) = try backend.read { db in (try db.epoch(), try db.keySlots()) }
        return try Self.openSlot(slots, with: material, vaultID: vaultID, epoch: epoch)
    }

    /// Rotates the keys after `opened` was proven, removing and adding slots, and carries the unlock
    /// session over to the new epoch.
    ///
    /// The current keys come from the opened slot when it has full access (topped up with the
    /// session's passcode root when the slot has none), else from a full-access session.
    private func rotateKeys(
        from opened: OpenedSlot, removing: Set<[UInt8]>, adding: [KeyRotation.NewSlot],
        replacement: KeyRing.SlotAccess?
    ) throws {
        let held = try? unlockedKeys()
        let device = try deviceSecret(creating: false)
        let next = try backend.write { db -> KeyRing in
            let epoch = try db.epoch()
            let current: KeyRing
            if opened.payload.isScoped {
                guard let held, held.masterKey != nil else {
                    throw VaultError.accessDenied("revoking a scoped key slot needs a full-access unlock")
                }
                current = try currentKeys(held, in: db)
            } else {
                var payload = opened.payload
                if payload.passcodeRoot == nil, let held, held.epoch == epoch {
                    payload.passcodeRoot = held.passcodeRoot
                }
                current = try KeyRing(payload, epoch: epoch)
            }
            return try KeyRotation(vaultID: vaultID, current: current, device: device)
                .run(removing: removing, adding: adding, in: db)
        }
        compactLogAfterBulkWork()
        // A full-access session moves to the new keys at once (keeping the passcode class only if
        // it had it); a scoped one follows through its own slot's new grant on its next call.
        session.withLock { state in
            guard let keys = state.keys, !state.ended, keys.masterKey != nil else { return }
            var access = keys.slot
            if let slot = access, removing.contains(slot.id) { access = replacement }
            if let ring = try? next.reopened(through: access, includingPasscode: keys.passcodeRoot != nil) {
                state.keys = ring
            }
        }
    }

    static func checkGroupName(_ group: String) throws {
        guard !group.isEmpty, group.utf8.count <= 1024 else {
            throw VaultError.invalidArgument("an access group name must be 1 to 1024 bytes")
        }
    }
}
