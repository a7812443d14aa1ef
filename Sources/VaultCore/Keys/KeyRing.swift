import Locking
import VaultCrypto

/// The keys of an unlocked vault, all in guarded memory.
///
/// A full-access ring holds the master key, one root per accessibility class derived from it, and
/// the passcode root when unlocked through a passphrase slot. A ring from a scoped slot holds only
/// its groups' keys. When the unlock session ends, ``withoutSessionClasses()`` gives a ring with no
/// key from which a `whenUnlocked`-type class could be derived again — not even the master key.
final class KeyRing: Sendable {
    /// Master-key subkey numbers under ``VaultFormat/subkeyContext``.
    private enum Subkey: UInt64 {
        case lookup = 1
        case integrity = 2
        case metadata = 3
        /// Class roots are `classBase + class code`.
        case classBase = 16
    }

    let masterKey: SymmetricKey?
    let passcodeRoot: SymmetricKey?
    /// The key epoch these keys belong to.
    let epoch: UInt64
    /// The slot this ring was opened through, with its private key: lets this process follow a
    /// rotation made elsewhere without asking for the passphrase again. Dropped with the session.
    let slot: SlotAccess?
    /// Keys the names of items into look-up tags and domains into ids.
    let lookupKey: SymmetricKey
    /// Keys the per-record hashes of the integrity digest and seals the digest.
    let integrityKey: SymmetricKey
    /// Seals vault metadata rows (factors, the access-group directory).
    let metadataKey: SymmetricKey
    /// The access groups a scoped ring may use; `nil` for full access.
    let scope: Set<String?>?
    private let classRoots: [Accessibility: SymmetricKey]
    private let groupKeys: [ClassGroup: SymmetricKey]
    private let domainKeys = Locked<[DomainKeyID: SymmetricKey]>([:])

    /// A slot's id and key pair, as held by a process unlocked through it.
    struct SlotAccess: Sendable {
        let id: [UInt8]
        let keys: AnonymousSealedBox.KeyPair
    }

    private struct DomainKeyID: Hashable {
        let domain: Domain
        let device: [UInt8]
    }

    private init(
        masterKey: SymmetricKey?, passcodeRoot: SymmetricKey?, epoch: UInt64, slot: SlotAccess?,
        lookupKey: SymmetricKey, integrityKey: SymmetricKey, metadataKey: SymmetricKey, scope: Set<String?>?,
        classRoots: [Accessibility: SymmetricKey], groupKeys: [ClassGroup: SymmetricKey]
    ) {
        self.masterKey = masterKey
        self.passcodeRoot = passcodeRoot
        self.epoch = epoch
        self.slot = slot
        self.lookupKey = lookupKey
        self.integrityKey = integrityKey
        self.metadataKey = metadataKey
        self.scope = scope
        self.classRoots = classRoots
        self.groupKeys = groupKeys
    }

    /// The ring a slot payload of `epoch` opens, remembering the slot it came through.
    convenience init(_ payload: SlotPayload, epoch: UInt64 = 0, slot: SlotAccess? = nil) throws {
        if let master = payload.masterKey {
            func derive(_ id: UInt64) throws -> SymmetricKey {
                try SubkeyDerivation.deriveKey(from: master, id: id, context: VaultFormat.subkeyContext)
            }
            var roots: [Accessibility: SymmetricKey] = [:]
            for accessibility in Accessibility.allCases where !accessibility.needsPasscode {
                roots[accessibility] = try derive(Subkey.classBase.rawValue + UInt64(accessibility.code))
            }
            if let passcodeRoot = payload.passcodeRoot {
                roots[.whenPasscodeSetThisDeviceOnly] = BLAKE2b.deriveKey(
                    from: Array("passcode class".utf8), key: passcodeRoot)
            }
            self.init(
                masterKey: master, passcodeRoot: payload.passcodeRoot, epoch: epoch, slot: slot,
                lookupKey: try derive(Subkey.lookup.rawValue),
                integrityKey: try derive(Subkey.integrity.rawValue), metadataKey: try derive(Subkey.metadata.rawValue),
                scope: nil, classRoots: roots, groupKeys: [:])
        } else {
            self.init(
                masterKey: nil, passcodeRoot: nil, epoch: epoch, slot: slot, lookupKey: payload.lookupKey!,
                integrityKey: payload.integrityKey!,
                metadataKey: payload.metadataKey!, scope: Set(payload.groupKeys.keys.map(\.accessGroup)),
                classRoots: [:], groupKeys: payload.groupKeys)
        }
    }

    /// This ring without the master key, the passcode root, the slot's private key and every
    /// `whenUnlocked`-type class: what stays when an unlock session ends but the vault is not locked.
    func withoutSessionClasses() -> KeyRing {
        KeyRing(
            masterKey: nil, passcodeRoot: nil, epoch: epoch, slot: nil, lookupKey: lookupKey,
            integrityKey: integrityKey,
            metadataKey: metadataKey, scope: scope, classRoots: classRoots.filter { !$0.key.endsWithSession },
            groupKeys: groupKeys.filter { !$0.key.accessibility.endsWithSession })
    }

    /// This full-access ring as held by a process unlocked through `slot`, with or without the
    /// passcode class.
    func reopened(through slot: SlotAccess?, includingPasscode: Bool) throws -> KeyRing {
        try KeyRing(
            SlotPayload(masterKey: masterKey, passcodeRoot: includingPasscode ? passcodeRoot : nil), epoch: epoch,
            slot: slot)
    }

    /// Every key this ring holds (cached domain keys included), labelled by role and class: for
    /// ``Vault/keyBuffersForTesting``.
    var labelledKeys: [(label: String, key: SymmetricKey)] {
        var keys: [(String, SymmetricKey)] = [
            ("lookup", lookupKey), ("integrity", integrityKey), ("metadata", metadataKey),
        ]
        if let masterKey { keys.append(("master", masterKey)) }
        if let passcodeRoot { keys.append(("passcode root", passcodeRoot)) }
        if let slot { keys.append(("slot private key", slot.keys.privateKey)) }
        keys += classRoots.map { ("class root \($0.key.rawValue)", $0.value) }
        keys += groupKeys.map { ("group key \($0.key.accessibility.rawValue)", $0.value) }
        keys += domainKeys.withLock { $0 }.map { ("domain key \($0.key.domain.accessibility.rawValue)", $0.value) }
        return keys
    }

    /// The accessibility classes whose keys this ring holds (for any group).
    var heldClasses: Set<Accessibility> {
        Set(classRoots.keys).union(groupKeys.keys.map(\.accessibility))
    }

    /// Whether this ring may use `group` at all.
    func isInScope(_ group: String?) -> Bool {
        scope.map { $0.contains(group) } ?? true
    }

    /// The key of one class in one group.
    ///
    /// - Throws: ``VaultError/accessDenied(_:)`` for a group outside a scoped unlock;
    ///   ``VaultError/locked`` when the class's keys are not held (session ended, or the passcode
    ///   class without a passphrase unlock).
    func groupKey(_ grant: ClassGroup) throws -> SymmetricKey {
        guard isInScope(grant.accessGroup) else {
            throw VaultError.accessDenied("this unlock is scoped to other access groups")
        }
        if let key = groupKeys[grant] { return key }
        guard let root = classRoots[grant.accessibility] else { throw VaultError.locked }
        var writer = ByteWriter()
        writer.append(raw: Array("group key".utf8))
        writer.append(group: grant.accessGroup)
        return BLAKE2b.deriveKey(from: writer.bytes, key: root)
    }

    /// The key that seals the records of `domain`; device-bound domains mix in the device secret.
    func key(for domain: Domain, device: DeviceSecret?) throws -> SymmetricKey {
        let cacheID = DomainKeyID(domain: domain, device: device?.id ?? [])
        if let cached = domainKeys.withLock({ $0[cacheID] }) { return cached }
        let groupKey = try groupKey(ClassGroup(accessibility: domain.accessibility, accessGroup: domain.accessGroup))
        var label = ByteWriter()
        label.append(raw: Array("domain key".utf8))
        label.append(domain.accessControl.rawValue)
        let key: SymmetricKey
        if domain.accessibility.isDeviceBound {
            guard let device else { throw VaultError.unavailableOnThisDevice }
            key = BLAKE2b.deriveKey(from: label.bytes, key: SymmetricKey(concatenating: groupKey, device.key))
        } else {
            key = BLAKE2b.deriveKey(from: label.bytes, key: groupKey)
        }
        domainKeys.withLock { $0[cacheID] = key }
        return key
    }

    /// The non-secret id stored with each record of `domain`: a keyed hash, so group names and
    /// devices cannot be read from the file.
    func id(of domain: Domain, device: DeviceSecret?) -> [UInt8] {
        BLAKE2b.hash(Array("domain id".utf8) + domain.label(device: device), key: lookupKey, outputByteCount: 16)
    }

    /// The look-up tag of a named record: a keyed hash of its kind, group and name.
    func lookup(kind: RecordKind, accessGroup: String?, name: String) -> [UInt8] {
        var writer = ByteWriter()
        writer.append(raw: Array("lookup".utf8))
        writer.append(kind.rawValue)
        writer.append(group: accessGroup)
        writer.append(lengthPrefixed: Array(name.utf8))
        return BLAKE2b.hash(writer.bytes, key: lookupKey)
    }

    /// The payload for a new slot: full access (the master key), or only `groups`' keys.
    ///
    /// - Throws: ``VaultError/locked`` when the master key is not held (scoped unlock, or an
    ///   ended session).
    func payload(scopedTo groups: Set<String?>?, includingPasscode: Bool) throws -> SlotPayload {
        guard let masterKey else { throw VaultError.locked }
        let passcode = includingPasscode ? passcodeRoot : nil
        guard let groups else { return SlotPayload(masterKey: masterKey, passcodeRoot: passcode) }
        var payload = SlotPayload(masterKey: nil, passcodeRoot: nil)
        payload.lookupKey = lookupKey
        payload.integrityKey = integrityKey
        payload.metadataKey = metadataKey
        for group in groups {
            for accessibility in Accessibility.allCases where !accessibility.needsPasscode || passcode != nil {
                let grant = ClassGroup(accessibility: accessibility, accessGroup: group)
                payload.groupKeys[grant] = try groupKey(grant)
            }
        }
        return payload
    }
}

extension SymmetricKey {
    /// Two keys side by side, as the key of a keyed hash that needs both.
    init(concatenating first: SymmetricKey, _ second: SymmetricKey) {
        let both = SecureBytes(count: first.byteCount + second.byteCount) { out in
            first.withUnsafeBytes { out.copyMemory(from: $0) }
            second.withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: out[first.byteCount...]).copyMemory(from: $0)
            }
        }
        self.init(secureBytes: both)
    }
}
