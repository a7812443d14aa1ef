import VaultCrypto
import VaultStorage

extension Vault {
    /// Replaces the key slot that `old` opens with one for `new`, in one transaction. Records are
    /// not re-encrypted: only the slot payload is re-wrapped. `old` stops working at once.
    ///
    /// If this removes the vault's last passphrase slot, the `whenPasscodeSetThisDeviceOnly` items
    /// are destroyed in the same transaction (their key lived only in passphrase slots).
    /// - Parameters:
    ///   - old: Material that opens an existing slot.
    ///   - new: The replacement material (a passphrase, key file, or both).
    ///   - keyDerivation: Argon2id costs for the new slot; by default the old slot's when it had a
    ///     passphrase, else `.moderate`.
    /// - Throws: ``VaultError/invalidCredentials`` when `old` opens no slot,
    ///   ``VaultError/invalidArgument(_:)`` for an empty new passphrase, and the errors of
    ///   ``open(at:unlock:configuration:)``.
    public func changeUnlock(from old: VaultUnlock, to new: VaultUnlock, keyDerivation: KeyDerivation? = nil) throws {
        try Self.translatingErrors {
            let oldMaterial = try UnlockMaterial(
                old, allowsInsecurePermissions: configuration.allowsInsecurePermissions)
            let newMaterial = try UnlockMaterial(
                new, allowsInsecurePermissions: configuration.allowsInsecurePermissions)
            try newMaterial.checkStrength()
            let slots = try database.read { try KeySlot.all(in: $0) }
            let (opened, payload) = try Self.openSlot(slots, with: oldMaterial, vaultID: vaultID)
            var replacementPayload = payload
            if newMaterial.slotKind.usesPassphrase {
                let otherPassphraseSlots = slots.contains { $0.kind.usesPassphrase && $0.id != opened.id }
                if !payload.isScoped && payload.passcodeRoot == nil {
                    guard !otherPassphraseSlots else {
                        throw VaultError.invalidArgument("change a passphrase slot, or unlock with a passphrase first")
                    }
                    replacementPayload.passcodeRoot = SymmetricKey(randomByteCount: 32)
                }
            } else {
                replacementPayload.passcodeRoot = nil
                replacementPayload.groupKeys = payload.groupKeys.filter { !$0.key.accessibility.needsPasscode }
            }
            let costs =
                keyDerivation
                ?? (opened.kind.usesPassphrase
                    ? .custom(opsLimit: opened.parameters.opsLimit, memLimitBytes: opened.parameters.memLimitBytes)
                    : .moderate)
            let replacement = try KeySlot.make(
                wrapping: replacementPayload, with: newMaterial, keyDerivation: costs, vaultID: vaultID)
            try write(keys: KeyRing(payload)) { transaction in
                try KeySlot.delete(id: opened.id, from: transaction.db)
                guard transaction.db.changes == 1 else { throw VaultError.invalidCredentials }  // changed meanwhile
                try replacement.insert(into: transaction.db)
                try destroyPasscodeItemsIfNoPassphraseSlot(&transaction)
            }
        }
    }

    /// Adds a key slot, optionally scoped to some access groups.
    ///
    /// A scoped slot wraps only those groups' keys (never the master key): a process unlocked
    /// through it reads and writes those groups and gets ``VaultError/accessDenied(_:)`` for the
    /// rest. Needs a full-access unlock.
    /// - Parameters:
    ///   - unlock: The new slot's material.
    ///   - keyDerivation: Argon2id costs for a passphrase; `.moderate` by default.
    ///   - accessGroups: The groups to grant, or `nil` for full access.
    /// - Throws: ``VaultError/locked`` without a full-access unlock, ``VaultError/invalidArgument(_:)``
    ///   for an empty passphrase, group list or group name.
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
            var keys = try unlockedKeys()
            guard keys.masterKey != nil else { throw VaultError.locked }
            let slots = try database.read { try KeySlot.all(in: $0) }
            if material.slotKind.usesPassphrase && keys.passcodeRoot == nil {
                guard !slots.contains(where: \.kind.usesPassphrase) else {
                    throw VaultError.invalidArgument("unlock with a passphrase to add another passphrase slot")
                }
                // The first passphrase slot brings the passcode class into being.
                keys = try KeyRing(
                    SlotPayload(masterKey: keys.masterKey, passcodeRoot: SymmetricKey(randomByteCount: 32)))
            }
            let payload = try keys.payload(
                scopedTo: accessGroups.map { Set($0.map(Optional.some)) },
                includingPasscode: material.slotKind.usesPassphrase)
            let slot = try KeySlot.make(
                wrapping: payload, with: material, keyDerivation: keyDerivation, vaultID: vaultID)
            try write(keys: keys) { transaction in
                try slot.insert(into: transaction.db)
                for group in accessGroups ?? [] { try GroupDirectory.add(group, in: &transaction) }
            }
            session.withLock { if $0.keys != nil && !$0.ended { $0.keys = keys } }
        }
    }

    /// Removes the key slot that `unlock` opens.
    ///
    /// Removing the last passphrase slot destroys the `whenPasscodeSetThisDeviceOnly` items.
    /// - Parameter unlock: Material that opens the slot to remove.
    /// - Throws: ``VaultError/invalidCredentials``; ``VaultError/invalidArgument(_:)`` when it is the
    ///   last slot with full access (the vault could never be opened again).
    public func removeUnlock(_ unlock: VaultUnlock) throws {
        try Self.translatingErrors {
            let material = try UnlockMaterial(
                unlock, allowsInsecurePermissions: configuration.allowsInsecurePermissions)
            let slots = try database.read { try KeySlot.all(in: $0) }
            let (opened, payload) = try Self.openSlot(slots, with: material, vaultID: vaultID)
            guard opened.isScoped || slots.contains(where: { !$0.isScoped && $0.id != opened.id }) else {
                throw VaultError.invalidArgument("this is the last key slot with full access")
            }
            try write(keys: KeyRing(payload)) { transaction in
                try KeySlot.delete(id: opened.id, from: transaction.db)
                try destroyPasscodeItemsIfNoPassphraseSlot(&transaction)
            }
        }
    }

    /// The key slots, without anything secret. Works locked.
    ///
    /// - Returns: Every slot this version can open.
    /// - Throws: ``VaultError/storage(_:)``.
    public func keySlots() throws -> [KeySlotInfo] {
        try Self.translatingErrors {
            try database.read { try KeySlot.all(in: $0) }.map { slot in
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

    /// Deletes every `whenPasscodeSetThisDeviceOnly` item once no passphrase slot is left: their
    /// class key lived only in passphrase slots, so they could never be read again.
    private func destroyPasscodeItemsIfNoPassphraseSlot(_ transaction: inout RecordTransaction) throws {
        guard !(try KeySlot.all(in: transaction.db).contains(where: \.kind.usesPassphrase)) else { return }
        let code = Int64(Accessibility.whenPasscodeSetThisDeviceOnly.code)
        for row in try transaction.rows(kind: .keyValueItem) where row.policyCode & 0xff == code {
            try transaction.delete(row)
        }
    }

    static func checkGroupName(_ group: String) throws {
        guard !group.isEmpty, group.utf8.count <= 1024 else {
            throw VaultError.invalidArgument("an access group name must be 1 to 1024 bytes")
        }
    }
}
