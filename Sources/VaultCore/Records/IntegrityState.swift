import VaultCrypto

/// One sealed digest: the vault-wide one (`integrity`: vault-wide rows and every key slot) or one
/// access group's (`group_integrity`: that group's rows), each with a write generation.
///
/// Each is sealed with its own key ``KeyRing/integrityKey(forGroup:)``, so a scoped unlock keeps
/// its groups' digests and cannot forge the digest of rows outside them.
struct IntegrityState {
    var generation: UInt64
    var digest: IntegrityDigest

    static let empty = IntegrityState(generation: 0, digest: IntegrityDigest())

    /// Binds the digest to its vault, format, key epoch and scope.
    static func associatedData(
        vaultID: [UInt8], epoch: UInt64, scope: [UInt8]?, format: Int = VaultFormat.sealingVersion
    ) -> [UInt8] {
        var writer = ByteWriter()
        writer.append(raw: VaultFormat.Tag.integrity)
        writer.append(UInt16(format))
        writer.append(raw: vaultID)
        if format >= 2 {
            writer.append(epoch)
            writer.append(UInt8(scope == nil ? 0 : 1))
            writer.append(lengthPrefixed: scope ?? [])
        }
        return writer.bytes
    }

    /// The stored digest of `scope` (`nil`: vault-wide), or `nil` when a group has none yet.
    ///
    /// - Parameter opened: What the session opened before; the digest is opened again only when its
    ///   sealed bytes changed.
    static func load(
        from store: any RecordReader, scope: [UInt8]?, key: SymmetricKey, epoch: UInt64, vaultID: [UInt8],
        format: Int = VaultFormat.sealingVersion, opened: OpenedRows? = nil
    ) throws -> IntegrityState? {
        let sealed = try store.sealedDigest(scope: scope)
        if scope == nil, sealed == nil { throw VaultError.integrity("the integrity digest is missing") }
        guard let sealed else { return nil }
        let authenticated = associatedData(vaultID: vaultID, epoch: epoch, scope: scope, format: format)
        let open = {
            do {
                return try XChaCha20Poly1305.open(
                    XChaCha20Poly1305.SealedBox(combined: sealed), using: key, authenticating: authenticated)
            } catch {
                throw VaultError.integrity("the integrity digest failed authentication")
            }
        }
        let plaintext =
            try opened?.plaintext(of: sealed, authenticating: authenticated, key: openedRowKey(scope), open: open)
            ?? open()
        // The generation (8 bytes, little-endian), then the digest: read in place, as every write
        // reads it.
        guard plaintext.count == 8 + IntegrityDigest.byteCount else {
            throw VaultError.integrity("a decrypted record is malformed")
        }
        let generation = plaintext.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        return IntegrityState(generation: generation, digest: try IntegrityDigest(bytes: Array(plaintext[8...])))
    }

    /// Seals this state as the digest of `scope` (`nil`: vault-wide) into `store`.
    ///
    /// - Parameter opened: The writing session's, told what was sealed, so its next write does not
    ///   open the digest it wrote.
    func store(
        into store: any RecordStore, scope: [UInt8]?, key: SymmetricKey, epoch: UInt64, vaultID: [UInt8],
        opened: OpenedRows? = nil
    ) throws {
        var writer = ByteWriter(reservingCapacity: 40)
        writer.append(generation)
        writer.append(raw: digest.bytes)
        let plaintext = writer.bytes
        let authenticated = Self.associatedData(vaultID: vaultID, epoch: epoch, scope: scope)
        let box = try XChaCha20Poly1305.seal(plaintext, using: key, authenticating: authenticated)
        try store.setSealedDigest(box.combined, scope: scope)
        opened?.remember(
            box.combined, authenticating: authenticated, key: Self.openedRowKey(scope), plaintext: plaintext)
    }

    /// What ``OpenedRows`` knows the digest of `scope` by: a zero byte, then the scope id. At 1 or
    /// 17 bytes, it is never a row's 32-byte look-up tag.
    private static func openedRowKey(_ scope: [UInt8]?) -> [UInt8] {
        [0] + (scope ?? [])
    }
}

/// The digests of what the file holds now, one per scope: every row under its scope's key, and the
/// key slots in the vault-wide digest. Rows can be added a page at a time: the digests are sums, so
/// the order does not matter.
struct ScopedDigests {
    /// By scope id; the empty id is the vault-wide scope.
    private(set) var digests: [[UInt8]: IntegrityDigest] = [:]
    private let keys: KeyRing
    private let groups: [[UInt8]: String]
    /// The integrity key of each scope met so far that this ring holds.
    private var keyByScope: [[UInt8]: SymmetricKey] = [:]

    /// Sums `rows` and `slots`; `groups` maps each scope id in use to its group. A scoped ring sums
    /// only its own groups' rows (it holds no other integrity key).
    ///
    /// - Throws: ``VaultError/integrity(_:)`` for a row whose scope names no known group (with full
    ///   access, where every group is known).
    init(rows: [RecordRow], slots: [KeySlot], keys: KeyRing, groups: [[UInt8]: String]) throws {
        try self.init(slots: slots, keys: keys, groups: groups)
        try add(rows)
    }

    /// Sums `slots`, for rows to be added with ``add(_:)``; `groups` maps each scope id in use to its
    /// group.
    init(slots: [KeySlot], keys: KeyRing, groups: [[UInt8]: String]) throws {
        self.keys = keys
        self.groups = groups
        guard keys.scope == nil else { return }
        let key = try keys.integrityKey(forGroup: nil)
        keyByScope[[]] = key
        for slot in slots { digests[[], default: IntegrityDigest()].add(slot.integrityHash(key: key)) }
    }

    /// Adds `rows` to the sums.
    ///
    /// - Throws: ``VaultError/integrity(_:)`` for a row whose scope names no known group (with full
    ///   access, where every group is known).
    mutating func add(_ rows: [RecordRow]) throws {
        for row in rows {
            let scope = row.scope ?? []
            guard keyByScope[scope] == nil, !scope.isEmpty else { continue }
            if let group = groups[scope], keys.isInScope(group) {
                keyByScope[scope] = try keys.integrityKey(forGroup: group)
            } else if keys.scope == nil {
                throw VaultError.integrity("a record belongs to no known access group")
            }
        }
        // Hashing every row's sealed bytes is most of the work, independent per row: on every core.
        let keyByScope = keyByScope
        let hashes = try rows.concurrentMap { row in
            keyByScope[row.scope ?? []].map { (scope: row.scope ?? [], hash: row.integrityHash(key: $0)) }
        }
        for case (let scope, let hash)? in hashes { digests[scope, default: IntegrityDigest()].add(hash) }
    }

    /// The digest of one scope (`nil`: vault-wide).
    subscript(scope: [UInt8]?) -> IntegrityDigest { digests[scope ?? []] ?? IntegrityDigest() }

    /// Stores every scope's digest with the generation given (0 where none is), replacing every
    /// group digest the file held, and a digest for every group in `groups`, empty or not.
    func storeAll(
        into store: any RecordStore, generations: [[UInt8]: UInt64], keys: KeyRing, groups: [[UInt8]: String],
        vaultID: [UInt8]
    ) throws {
        try store.removeGroupDigests()
        for scope in Set(groups.keys).union([[]]) {
            let state = IntegrityState(generation: generations[scope] ?? 0, digest: self[scope])
            try state.store(
                into: store, scope: scope.isEmpty ? nil : scope,
                key: keys.integrityKey(forGroup: scope.isEmpty ? nil : groups[scope]), epoch: keys.epoch,
                vaultID: vaultID)
        }
    }
}

extension ScopedDigests {
    /// Compares these digests with the stored ones this ring holds keys for: the vault-wide one with
    /// full access, and every group's in `groups` that the ring may use (each must exist). With full
    /// access, a stored group digest of no known group is an error too.
    ///
    /// - Returns: The stored generation of each scope checked (empty id: vault-wide).
    /// - Throws: ``VaultError/integrity(_:)`` naming what does not match.
    func check(
        in store: any RecordReader, keys: KeyRing, groups: [[UInt8]: String], vaultID: [UInt8],
        format: Int = VaultFormat.sealingVersion
    ) throws -> [[UInt8]: UInt64] {
        var scopes: [[UInt8]?] = keys.scope == nil ? [nil] : []
        if format >= 2 { scopes += groups.keys.filter { keys.isInScope(groups[$0]) }.map(Optional.some) }
        var generations: [[UInt8]: UInt64] = [:]
        for scope in scopes {
            let key = try keys.integrityKey(forGroup: scope.flatMap { groups[$0] })
            guard
                let state = try IntegrityState.load(
                    from: store, scope: scope, key: key, epoch: keys.epoch, vaultID: vaultID, format: format)
            else { throw VaultError.integrity("the digest of an access group is missing") }
            guard self[scope] == state.digest else {
                throw VaultError.integrity(
                    "the set of records and key slots does not match the integrity digest (a record or key slot was deleted, added, edited or rolled back outside the vault)"
                )
            }
            generations[scope ?? []] = state.generation
        }
        if keys.scope == nil, format >= 2 {
            let stored = try store.digestScopes()
            guard stored.allSatisfy({ groups[$0] != nil }) else {
                throw VaultError.integrity("a digest belongs to no known access group")
            }
        }
        return generations
    }
}
