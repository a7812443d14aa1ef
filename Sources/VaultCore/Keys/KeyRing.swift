import Locking
import VaultCrypto

/// The keys of an unlocked vault, all in guarded memory.
///
/// A full-access ring holds the master key, one root per accessibility class derived from it, and
/// the passcode root when unlocked through a passphrase slot. A ring from a scoped slot holds only
/// what its groups need: the look-up key, the factor-record key, and per group the class keys and
/// the group's own integrity and metadata keys — never the vault-wide integrity or metadata key, so
/// it can neither read vault-wide metadata nor forge the digest of rows outside its groups. When
/// the unlock session ends, ``withoutSessionClasses()`` gives a ring with no key from which a
/// `whenUnlocked`-type class could be derived again — not even the master key.
final class KeyRing: Sendable {
    /// Master-key subkey numbers under ``VaultFormat/subkeyContext``.
    private enum Subkey: UInt64 {
        case lookup = 1
        case integrity = 2
        case metadata = 3
        case factor = 4
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
    /// Keys the names of items into look-up tags, domains into ids and groups into scope ids.
    let lookupKey: SymmetricKey
    /// Keys the vault-wide digest (vault-wide rows and key slots) and seals it; full access only.
    private let vaultIntegrityKey: SymmetricKey?
    /// Seals vault-wide metadata rows (the group directory, the default token id, slot scopes);
    /// full access only.
    private let vaultMetadataKey: SymmetricKey?
    /// The index key of the vault-wide records (``indexKey(forGroup:)`` for `nil`), derived once:
    /// every store of a token needs it.
    private let vaultIndexKey: SymmetricKey?
    /// Seals the enrolled-factor records, which every unlock needs for access-controlled items.
    private let factorKey: SymmetricKey?
    /// The access groups a scoped ring may use; `nil` for full access.
    let scope: Set<String?>?
    private let classRoots: [Accessibility: SymmetricKey]
    private let groupKeys: [ClassGroup: SymmetricKey]
    /// A scoped ring's per-group integrity and metadata keys.
    private let groupIntegrityKeys: [String: SymmetricKey]
    private let groupMetadataKeys: [String: SymmetricKey]
    /// The key and id of the domain of ``VaultPolicy/default``, which nearly every record is sealed
    /// in: derived when a full-access ring is made, so a store or a read of such a record finds them
    /// without hashing the domain into the caches below. `nil` in a scoped ring.
    private let defaultDomain: (key: SymmetricKey, id: [UInt8])?
    private let domainKeys = Locked<[DomainKeyID: SymmetricKey]>([:])
    /// The index keys derived so far, by access group: every store of a token needs its group's.
    private let indexKeys = Locked<[String?: SymmetricKey]>([:])
    /// Look-up tags and domain ids computed so far: every write needs a few of the same ones (the
    /// default token's, its domain's). They are stored in the clear in the file anyway; at most
    /// ``derivedTagCapacity`` of each are kept.
    private let lookupTags = Locked<[LookupName: [UInt8]]>([:])
    private let domainIDs = Locked<[DomainKeyID: [UInt8]]>([:])
    /// The most look-up tags, and domain ids, kept.
    private static let derivedTagCapacity = 256

    /// What a look-up tag is computed from.
    private struct LookupName: Hashable, Sendable {
        let kind: RecordKind
        let accessGroup: String?
        let name: String
    }

    /// A slot's id and key pair, as held by a process unlocked through it.
    struct SlotAccess: Sendable {
        let id: [UInt8]
        let keys: AnonymousSealedBox.KeyPair
    }

    private struct DomainKeyID: Hashable, Sendable {
        let domain: Domain
        let device: [UInt8]
    }

    private init(
        masterKey: SymmetricKey?, passcodeRoot: SymmetricKey?, epoch: UInt64, slot: SlotAccess?,
        lookupKey: SymmetricKey, vaultIntegrityKey: SymmetricKey?, vaultMetadataKey: SymmetricKey?,
        factorKey: SymmetricKey?, scope: Set<String?>?, classRoots: [Accessibility: SymmetricKey],
        groupKeys: [ClassGroup: SymmetricKey], groupIntegrityKeys: [String: SymmetricKey],
        groupMetadataKeys: [String: SymmetricKey]
    ) {
        self.masterKey = masterKey
        self.passcodeRoot = passcodeRoot
        self.epoch = epoch
        self.slot = slot
        self.lookupKey = lookupKey
        self.vaultIntegrityKey = vaultIntegrityKey
        self.vaultMetadataKey = vaultMetadataKey
        vaultIndexKey = vaultMetadataKey.map(Self.indexKey(from:))
        self.factorKey = factorKey
        self.scope = scope
        self.classRoots = classRoots
        self.groupKeys = groupKeys
        self.groupIntegrityKeys = groupIntegrityKeys
        self.groupMetadataKeys = groupMetadataKeys
        if scope == nil, let root = classRoots[Domain.vaultDefault.accessibility] {
            let domain = Domain.vaultDefault
            defaultDomain = (
                Self.domainKey(of: domain, groupKey: Self.groupKey(root: root, group: nil), device: nil),
                Self.domainID(of: domain, device: nil, lookupKey: lookupKey)
            )
        } else {
            defaultDomain = nil
        }
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
                lookupKey: try derive(Subkey.lookup.rawValue), vaultIntegrityKey: try derive(Subkey.integrity.rawValue),
                vaultMetadataKey: try derive(Subkey.metadata.rawValue), factorKey: try derive(Subkey.factor.rawValue),
                scope: nil, classRoots: roots, groupKeys: [:], groupIntegrityKeys: [:], groupMetadataKeys: [:])
        } else {
            guard let lookupKey = payload.lookupKey else {
                throw VaultError.unsupportedFormat("a key slot's payload is malformed")
            }
            self.init(
                masterKey: nil, passcodeRoot: nil, epoch: epoch, slot: slot, lookupKey: lookupKey,
                vaultIntegrityKey: payload.integrityKey, vaultMetadataKey: payload.metadataKey,
                factorKey: payload.factorKey, scope: Set(payload.groupKeys.keys.map(\.accessGroup)),
                classRoots: [:], groupKeys: payload.groupKeys, groupIntegrityKeys: payload.groupIntegrityKeys,
                groupMetadataKeys: payload.groupMetadataKeys)
        }
    }

    /// This ring without the master key, the passcode root, the slot's private key and every
    /// `whenUnlocked`-type class: what stays when an unlock session ends but the vault is not locked.
    func withoutSessionClasses() -> KeyRing {
        KeyRing(
            masterKey: nil, passcodeRoot: nil, epoch: epoch, slot: nil, lookupKey: lookupKey,
            vaultIntegrityKey: vaultIntegrityKey, vaultMetadataKey: vaultMetadataKey, factorKey: factorKey,
            scope: scope, classRoots: classRoots.filter { !$0.key.endsWithSession },
            groupKeys: groupKeys.filter { !$0.key.accessibility.endsWithSession },
            groupIntegrityKeys: groupIntegrityKeys, groupMetadataKeys: groupMetadataKeys)
    }

    /// This full-access ring as held by a process unlocked through `slot`, with or without the
    /// passcode class.
    func reopened(through slot: SlotAccess?, includingPasscode: Bool) throws -> KeyRing {
        try KeyRing(
            SlotPayload(masterKey: masterKey, passcodeRoot: includingPasscode ? passcodeRoot : nil), epoch: epoch,
            slot: slot)
    }

    // MARK: Scopes

    /// The id stored in a row's `scope` column for `group`: a keyed hash, so the file does not name
    /// the group. `nil` for vault-wide rows.
    func scopeID(of group: String?) -> [UInt8]? {
        guard let group else { return nil }
        var writer = ByteWriter()
        writer.append(raw: Array("scope".utf8))
        writer.append(group: group)
        return BLAKE2b.hash(writer.bytes, key: lookupKey, outputByteCount: 16)
    }

    /// The scope id of each of `groups` (the vault-wide `nil` has none), to find a row's group.
    func scopes(of groups: [String?]) -> [[UInt8]: String] {
        Dictionary(
            groups.compactMap { group in group.flatMap { name in scopeID(of: name).map { ($0, name) } } },
            uniquingKeysWith: { first, _ in first })
    }

    /// The key of the digest of `group`'s rows, or of the vault-wide rows and key slots for `nil`.
    ///
    /// - Throws: ``VaultError/accessDenied(_:)`` for a scope this unlock does not hold.
    func integrityKey(forGroup group: String?) throws -> SymmetricKey {
        try scopedKey(group, vaultWide: vaultIntegrityKey, granted: groupIntegrityKeys, label: "group integrity")
    }

    /// The key that seals `group`'s metadata rows (its tokens' refresh leases), or the vault-wide
    /// metadata rows for `nil`.
    ///
    /// - Throws: ``VaultError/accessDenied(_:)`` for a scope this unlock does not hold.
    func metadataKey(forGroup group: String?) throws -> SymmetricKey {
        try scopedKey(group, vaultWide: vaultMetadataKey, granted: groupMetadataKeys, label: "group metadata")
    }

    /// The index key derived from a metadata key.
    private static func indexKey(from metadataKey: SymmetricKey) -> SymmetricKey {
        BLAKE2b.deriveKey(from: Array("TVindex1".utf8), key: metadataKey)
    }

    /// The key of `group`'s index terms (or the vault-wide records' for `nil`): derived from the
    /// group's metadata key, so exactly the unlocks that read the group's metadata can query it.
    ///
    /// - Throws: ``VaultError/accessDenied(_:)`` for a scope this unlock does not hold.
    func indexKey(forGroup group: String?) throws -> SymmetricKey {
        if group == nil, let vaultIndexKey { return vaultIndexKey }
        if let known = indexKeys.withLock({ $0[group] }) { return known }
        let key = Self.indexKey(from: try metadataKey(forGroup: group))
        indexKeys.withLock { $0[group] = key }
        return key
    }

    /// The key that seals enrolled-factor records.
    ///
    /// - Throws: ``VaultError/accessDenied(_:)`` for a scoped slot granted before factor keys were
    ///   (a version 1 slot): a full-access rotation grants it.
    func factorRecordKey() throws -> SymmetricKey {
        guard let factorKey else {
            throw VaultError.accessDenied("this scoped unlock predates factor keys; re-key the vault with full access")
        }
        return factorKey
    }

    /// The key a metadata row of `kind` is sealed with: the factor key for factor records, else the
    /// metadata key of its group (or the vault-wide one).
    func metadataSealingKey(kind: RecordKind, group: String?) throws -> SymmetricKey {
        kind == .factor ? try factorRecordKey() : try metadataKey(forGroup: group)
    }

    private func scopedKey(
        _ group: String?, vaultWide: SymmetricKey?, granted: [String: SymmetricKey], label: String
    ) throws -> SymmetricKey {
        guard let group else {
            guard let vaultWide else { throw VaultError.accessDenied(Self.vaultWideDenied) }
            return vaultWide
        }
        guard isInScope(group) else { throw VaultError.accessDenied("this unlock is scoped to other access groups") }
        if let key = granted[group] { return key }
        guard let vaultWide, scope == nil else { throw VaultError.accessDenied(Self.vaultWideDenied) }
        var writer = ByteWriter()
        writer.append(raw: Array(label.utf8))
        writer.append(group: group)
        return BLAKE2b.deriveKey(from: writer.bytes, key: vaultWide)
    }

    static let vaultWideDenied = "vault-wide data needs a full-access unlock"

    /// Every key this ring holds (cached domain keys included), labelled by role and class: for
    /// ``Vault/keyBuffersForTesting``.
    var labelledKeys: [(label: String, key: SymmetricKey)] {
        var keys: [(String, SymmetricKey)] = [("lookup", lookupKey)]
        if let vaultIntegrityKey { keys.append(("integrity", vaultIntegrityKey)) }
        if let vaultMetadataKey { keys.append(("metadata", vaultMetadataKey)) }
        if let factorKey { keys.append(("factor records", factorKey)) }
        if let masterKey { keys.append(("master", masterKey)) }
        if let passcodeRoot { keys.append(("passcode root", passcodeRoot)) }
        if let slot { keys.append(("slot private key", slot.keys.privateKey)) }
        keys += classRoots.map { ("class root \($0.key.rawValue)", $0.value) }
        keys += groupKeys.map { ("group key \($0.key.accessibility.rawValue)", $0.value) }
        keys += groupIntegrityKeys.values.map { ("group integrity", $0) }
        keys += groupMetadataKeys.values.map { ("group metadata", $0) }
        if let defaultDomain {
            keys.append(("domain key \(Domain.vaultDefault.accessibility.rawValue)", defaultDomain.key))
        }
        keys += domainKeys.withLock { $0 }.map { ("domain key \($0.key.domain.accessibility.rawValue)", $0.value) }
        if let vaultIndexKey { keys.append(("index key", vaultIndexKey)) }
        keys += indexKeys.withLock { $0 }.values.map { ("index key", $0) }
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
        return Self.groupKey(root: root, group: grant.accessGroup)
    }

    /// The key of `group` in the class whose root is `root`.
    private static func groupKey(root: SymmetricKey, group: String?) -> SymmetricKey {
        var writer = ByteWriter()
        writer.append(raw: Array("group key".utf8))
        writer.append(group: group)
        return BLAKE2b.deriveKey(from: writer.bytes, key: root)
    }

    /// The key that seals the records of `domain`; device-bound domains mix in the device secret.
    func key(for domain: Domain, device: DeviceSecret?) throws -> SymmetricKey {
        if let defaultDomain, domain == .vaultDefault { return defaultDomain.key }
        let cacheID = DomainKeyID(domain: domain, device: device?.id ?? [])
        if let cached = domainKeys.withLock({ $0[cacheID] }) { return cached }
        let groupKey = try groupKey(ClassGroup(accessibility: domain.accessibility, accessGroup: domain.accessGroup))
        if domain.accessibility.isDeviceBound, device == nil { throw VaultError.unavailableOnThisDevice }
        let key = Self.domainKey(of: domain, groupKey: groupKey, device: device)
        domainKeys.withLock { $0[cacheID] = key }
        return key
    }

    /// The key of `domain` from its group's key, mixed with `device`'s key for a device-bound
    /// domain (which must then have one).
    private static func domainKey(of domain: Domain, groupKey: SymmetricKey, device: DeviceSecret?) -> SymmetricKey {
        var label = ByteWriter()
        label.append(raw: Array("domain key".utf8))
        label.append(domain.accessControl.rawValue)
        if domain.accessibility.isDeviceBound, let device {
            return BLAKE2b.deriveKey(from: label.bytes, key: SymmetricKey(concatenating: groupKey, device.key))
        }
        return BLAKE2b.deriveKey(from: label.bytes, key: groupKey)
    }

    /// The non-secret id stored with each record of `domain`: a keyed hash, so group names and
    /// devices cannot be read from the file.
    func id(of domain: Domain, device: DeviceSecret?) -> [UInt8] {
        if let defaultDomain, domain == .vaultDefault { return defaultDomain.id }
        return Self.remembered(DomainKeyID(domain: domain, device: device?.id ?? []), in: domainIDs) {
            Self.domainID(of: domain, device: device, lookupKey: lookupKey)
        }
    }

    /// The id of `domain` (with `device` for a device-bound one), keyed with the look-up key.
    private static func domainID(of domain: Domain, device: DeviceSecret?, lookupKey: SymmetricKey) -> [UInt8] {
        BLAKE2b.hash(Array("domain id".utf8) + domain.label(device: device), key: lookupKey, outputByteCount: 16)
    }

    /// The look-up tag of a named record: a keyed hash of its kind, group and name.
    ///
    /// - Parameter remembering: Whether the tag is kept for the next call; `false` for a name seen
    ///   once, such as a new record's, which would only push out a tag that is used again.
    func lookup(kind: RecordKind, accessGroup: String?, name: String, remembering: Bool = true) -> [UInt8] {
        let compute = {
            var writer = ByteWriter()
            writer.append(raw: "lookup".utf8)
            writer.append(kind.rawValue)
            writer.append(group: accessGroup)
            writer.append(lengthPrefixed: name.utf8)
            return BLAKE2b.hash(writer.bytes, key: self.lookupKey)
        }
        guard remembering else { return compute() }
        return Self.remembered(
            LookupName(kind: kind, accessGroup: accessGroup, name: name), in: lookupTags, compute: compute)
    }

    /// The tag kept under `key` in `tags`, or the one `compute` makes, kept.
    private static func remembered<Key: Hashable & Sendable>(
        _ key: Key, in tags: Locked<[Key: [UInt8]]>, compute: () -> [UInt8]
    ) -> [UInt8] {
        if let known = tags.withLock({ $0[key] }) { return known }
        let tag = compute()
        tags.withLock { tags in
            if tags.count >= derivedTagCapacity { tags.removeAll(keepingCapacity: true) }
            tags[key] = tag
        }
        return tag
    }

    /// The payload for a new slot: full access (the master key), or only what `groups` need.
    ///
    /// - Throws: ``VaultError/locked`` when the master key is not held (scoped unlock, or an
    ///   ended session).
    func payload(scopedTo groups: Set<String?>?, includingPasscode: Bool) throws -> SlotPayload {
        guard let masterKey else { throw VaultError.locked }
        let passcode = includingPasscode ? passcodeRoot : nil
        guard let groups else { return SlotPayload(masterKey: masterKey, passcodeRoot: passcode) }
        var payload = SlotPayload(masterKey: nil, passcodeRoot: nil)
        payload.lookupKey = lookupKey
        payload.factorKey = factorKey
        for group in groups {
            for accessibility in Accessibility.allCases where !accessibility.needsPasscode || passcode != nil {
                let grant = ClassGroup(accessibility: accessibility, accessGroup: group)
                payload.groupKeys[grant] = try groupKey(grant)
            }
            if let group {
                payload.groupIntegrityKeys[group] = try integrityKey(forGroup: group)
                payload.groupMetadataKeys[group] = try metadataKey(forGroup: group)
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
