import VaultCrypto
import VaultStorage

/// The records and key slots of one write transaction: every insert, update and delete also
/// updates the digest of the row's scope (its access group, or the vault-wide one), and each digest
/// touched is re-sealed with its next generation when the transaction commits.
///
/// A scoped unlock can only touch rows of its own groups: the other digests' keys are not in its
/// ring, so any other write fails with ``VaultError/accessDenied(_:)``.
struct RecordTransaction {
    /// The records and digests, to read: writes go through this transaction's methods, which keep
    /// the digests in step.
    var records: any RecordReader { store }
    private let store: any RecordStore
    /// Only for the key slots, which live beside the records.
    private let db: any BackendWriteTransaction
    let keys: KeyRing
    let vaultID: [UInt8]
    /// The file's format version: from 3, token records are indexed.
    let format: Int
    /// What the session opened of the digests before, so an unchanged one is not opened again.
    private let opened: OpenedRows?
    /// The vault-wide digest, once loaded. It is kept apart from the groups' so that the usual
    /// write, of no access group, builds no dictionary.
    private var vaultWideState: IntegrityState?
    /// The digests of access groups loaded so far, by scope id.
    private var groupStates: [[UInt8]: IntegrityState] = [:]
    /// The group of each scope id this transaction has met.
    private var groups: [[UInt8]: String] = [:]
    private var knowsAllGroups = false

    /// A transaction over `db`, of the file's format version `format` (read from `db` when `nil`).
    ///
    /// - Parameter opened: What the unlock session holding `keys` opened before.
    init(
        db: any BackendWriteTransaction, keys: KeyRing, vaultID: [UInt8], format: Int? = nil,
        opened: OpenedRows? = nil
    ) throws {
        self.db = db
        self.store = db.recordStore
        self.keys = keys
        self.vaultID = vaultID
        self.format = try format ?? db.formatVersion()
        self.opened = opened
    }

    func row(lookup: [UInt8]) throws -> RecordRow? {
        try records.row(lookup: lookup)
    }

    func rows(kind: RecordKind) throws -> [RecordRow] {
        try records.rows(kind: kind)
    }

    /// Every key slot.
    func keySlots() throws -> [KeySlot] {
        try db.keySlots()
    }

    /// Makes `group` known to this transaction, and returns its scope id (`nil` for no group).
    @discardableResult
    mutating func register(group: String?) -> [UInt8]? {
        guard let group, let scope = keys.scopeID(of: group) else { return nil }
        groups[scope] = group
        return scope
    }

    /// Makes sure `group` has a digest, even with no row yet (a full-access unlock adding it).
    mutating func ensureDigest(of group: String) throws {
        _ = try state(register(group: group))
    }

    mutating func insert(_ row: RecordRow) throws {
        try store.insert(row)
        try add(row)
    }

    /// Inserts a token row filed under `terms`, hashed with `group`'s index key, in one write of the
    /// row where the store can.
    ///
    /// - Throws: ``VaultError/alreadyExists(_:)`` when a row has the same look-up tag.
    mutating func insert(_ row: RecordRow, terms: [IndexTerm], group: String?) throws {
        let key = try keys.indexKey(forGroup: group)
        do {
            try store.insert(row, terms: terms.map { $0.hash(key: key) })
        } catch let error where Self.isDuplicate(error) {
            throw VaultError.alreadyExists("a record with this look-up tag")
        }
        try add(row)
    }

    /// Whether a store refused a row because its id or look-up tag is in use (both are unique).
    private static func isDuplicate(_ error: any Error) -> Bool {
        switch error {
        case let error as StorageError: error.isConstraint
        case let error as PostgresError: error.isUniqueViolation
        default: false
        }
    }

    /// Replaces `old` with `new` (same record id, a later version), if the row is still at `old`'s
    /// version.
    mutating func replace(_ old: RecordRow, with new: RecordRow) throws {
        precondition(old.id == new.id && new.version > old.version, "a replacement keeps the id and bumps the version")
        try store.update(new, expectedVersion: old.version)
        try subtract(old)
        try add(new)
    }

    mutating func delete(_ row: RecordRow) throws {
        try store.delete(row)
        try subtract(row)
    }

    /// Moves a record's index entries from `old` terms to `new` ones, hashed with `group`'s index
    /// key. The index is derived from the sealed terms, so it is outside the digests: a query opens
    /// every match, and ``Vault/verify()`` rebuilds the index to compare.
    func reindex(recordID: [UInt8], from old: [IndexTerm], to new: [IndexTerm], group: String?) throws {
        let removed = Set(old).subtracting(new)
        let added = Set(new).subtracting(old)
        guard !removed.isEmpty || !added.isEmpty else { return }
        let key = try keys.indexKey(forGroup: group)
        try store.fileTerms(new.map { $0.hash(key: key) }, removing: removed.map { $0.hash(key: key) }, of: recordID)
    }

    /// Files many records at once (an upgrade filing a whole vault), in the index's order.
    func index(_ entries: [IndexEntry]) throws {
        try store.addIndexEntries(entries)
    }

    /// Whether the default token row is known to name a stored token
    /// (``RecordStore/knowsDefaultNamesStoredToken``).
    var knowsDefaultNamesStoredToken: Bool { store.knowsDefaultNamesStoredToken }

    /// Notes that the default token row names a stored token
    /// (``RecordStore/noteDefaultNamesStoredToken()``).
    func noteDefaultNamesStoredToken() {
        store.noteDefaultNamesStoredToken()
    }

    /// A fresh id for a record this transaction inserts, in the store's order.
    func newRecordID() throws -> [UInt8] {
        try store.nextRecordID()
    }

    mutating func insertSlot(_ slot: KeySlot) throws {
        try db.insertSlot(slot)
        let key = try keys.integrityKey(forGroup: nil)
        try state(nil)
        changeDigest(of: nil) { $0.add(slot.integrityHash(key: key)) }
    }

    mutating func deleteSlot(_ slot: KeySlot) throws {
        try db.deleteSlot(id: slot.id)
        let key = try keys.integrityKey(forGroup: nil)
        try state(nil)
        changeDigest(of: nil) { $0.subtract(slot.integrityHash(key: key)) }
    }

    /// Seals every digest touched with its next generation. Call last, inside the same SQL transaction.
    mutating func commit() throws {
        if let vaultWideState { try seal(vaultWideState, scope: nil, group: nil) }
        for (scope, state) in groupStates { try seal(state, scope: scope, group: groups[scope]) }
    }

    /// Stores `state` with its next generation as the digest of `scope`, of `group`.
    private func seal(_ state: IntegrityState, scope: [UInt8]?, group: String?) throws {
        var next = state
        next.generation += 1
        try next.store(
            into: store, scope: scope, key: keys.integrityKey(forGroup: group), epoch: keys.epoch, vaultID: vaultID,
            opened: opened)
    }

    // MARK: Digests

    private mutating func add(_ row: RecordRow) throws {
        let key = try integrityKey(of: row.scope)
        changeDigest(of: row.scope) { $0.add(row.integrityHash(key: key)) }
    }

    private mutating func subtract(_ row: RecordRow) throws {
        let key = try integrityKey(of: row.scope)
        changeDigest(of: row.scope) { $0.subtract(row.integrityHash(key: key)) }
    }

    /// The integrity key of `scope`, with its digest loaded.
    private mutating func integrityKey(of scope: [UInt8]?) throws -> SymmetricKey {
        try state(scope)
        return try keys.integrityKey(forGroup: group(of: scope))
    }

    /// Loads the digest of `scope` once. A group with no digest yet starts empty when this unlock has
    /// full access (the group is new); a scoped unlock's groups always have one.
    @discardableResult
    private mutating func state(_ scope: [UInt8]?) throws -> IntegrityState {
        if let loaded = loadedState(scope) { return loaded }
        let key = try keys.integrityKey(forGroup: group(of: scope))
        let stored = try IntegrityState.load(
            from: records, scope: scope, key: key, epoch: keys.epoch, vaultID: vaultID, opened: opened)
        guard let state = stored ?? (keys.scope == nil ? .empty : nil) else {
            throw VaultError.integrity("the digest of an access group is missing")
        }
        if let scope { groupStates[scope] = state } else { vaultWideState = state }
        return state
    }

    /// The digest of `scope` if this transaction loaded it.
    private func loadedState(_ scope: [UInt8]?) -> IntegrityState? {
        guard let scope else { return vaultWideState }
        return groupStates[scope]
    }

    /// Changes the loaded digest of `scope` (``state(_:)`` has loaded it).
    private mutating func changeDigest(of scope: [UInt8]?, _ change: (inout IntegrityDigest) -> Void) {
        if let scope {
            change(&groupStates[scope]!.digest)
        } else {
            change(&vaultWideState!.digest)
        }
    }

    /// The group a scope id stands for.
    private mutating func group(of scope: [UInt8]?) throws -> String? {
        guard let scope else { return nil }
        if let group = groups[scope] { return group }
        if !knowsAllGroups {
            knowsAllGroups = true
            let candidates =
                try keys.scope.map { Array($0) }
                ?? ([nil] + GroupDirectory.groups(in: records, keys: keys, vaultID: vaultID).sorted())
            for group in candidates { register(group: group) }
            if let group = groups[scope] { return group }
        }
        if keys.scope != nil { throw VaultError.accessDenied("this unlock is scoped to other access groups") }
        throw VaultError.integrity("a record belongs to no known access group")
    }
}

extension RecordTransaction {
    /// Inserts or replaces a metadata row: vault-wide (`group` `nil`), or of one access group (its
    /// tokens' leases), sealed with the matching metadata key (factor records with the factor key).
    mutating func upsertMetadata(
        _ plaintext: [UInt8], kind: RecordKind, lookup: [UInt8], replacing existing: RecordRow?,
        group: String? = nil
    ) throws {
        let row = try RecordRow.seal(
            plaintext, id: existing?.id ?? newRecordID(), kind: kind,
            lookup: lookup, domainID: RecordRow.metadataDomainID, policyCode: 0,
            version: (existing?.version ?? 0) + 1, scope: register(group: group),
            key: keys.metadataSealingKey(kind: kind, group: group), vaultID: vaultID)
        if let existing {
            try replace(existing, with: row)
        } else {
            try insert(row)
        }
    }
}
