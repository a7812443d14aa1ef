import Foundation

/// A token record's public half, as the credential layer stores it.
package struct TokenRecordMetadata: Sendable {
    /// The token's id.
    package let id: String
    /// The metadata bytes (tags, claims), sealed with the domain key only.
    package let metadata: [UInt8]
    /// The record's policy, as stored.
    package let policy: VaultPolicy
    /// The record's version: what a compare-and-swap write of this record expects.
    package let version: UInt64

    /// The public half of the token record `row`, opened to `envelope` in `domain`.
    init(_ envelope: ItemEnvelope, domain: Domain, row: RecordRow) {
        id = envelope.name
        metadata = envelope.metadata
        policy = domain.policy
        version = row.version
    }
}

/// Token records for the credential layer: metadata readable with the domain key alone, the token
/// behind the record's policy (access control included), and the default token id — each change in
/// one transaction. Package-internal: apps use `Credential` and `VaultTokenStorage`.
///
/// Every write of a record compares its version with the one the writer read (compare-and-swap),
/// so a writer that read an older version gets ``VaultError/conflict(_:)`` instead of overwriting a
/// newer token. Every access opens the record and checks that its access group is in this unlock's
/// scope (``VaultError/accessDenied(_:)`` otherwise). The default token id is vault-wide: a scoped
/// unlock neither reads nor sets it, since it would name, or let it replace, another group's token.
extension Vault {
    /// Stores a new token record, indexed under `terms`; in the same transaction it becomes the
    /// default when `defaultIfNone` and there is none. Through a scoped unlock it never becomes the
    /// default.
    ///
    /// - Parameter generation: The key generation taken before the call, for a copy of the record
    ///   to keep (``SealedRecordCopy``); `nil` for none.
    /// - Returns: Whether it became the default, and the copy (`nil` without a generation, or for
    ///   an access-controlled record).
    /// - Throws: ``VaultError/alreadyExists(_:)`` when the id is stored, and what
    ///   ``set(_:for:)`` throws for the policy.
    @discardableResult
    package func insertTokenRecord(
        id: String, metadata: [UInt8], terms: [IndexTerm], secret: [UInt8], policy: VaultPolicy, defaultIfNone: Bool,
        copyFor generation: VaultKeyGeneration? = nil
    ) throws -> (becameDefault: Bool, copy: SealedRecordCopy?) {
        if let group = policy.accessGroup { try Self.checkGroupName(group) }
        let device = policy.accessibility.isDeviceBound ? try deviceSecret(creating: true) : nil
        return try write(rerunnable: true) { transaction in
            // The look-up tag is unique, so the insert itself refuses a stored id: no read first.
            let row: RecordRow
            do {
                row = try storeItem(
                    ItemContent(name: id, metadata: metadata, value: secret, terms: terms), kind: .token,
                    lookup: tokenLookup(id, transaction.keys, remembering: false), policy: policy, device: device,
                    replacing: nil, in: &transaction)
            } catch VaultError.alreadyExists {
                throw VaultError.alreadyExists("a token with this id")
            }
            let copy = SealedRecordCopy(row, domain: Domain(policy), generation: generation)
            guard defaultIfNone, transaction.keys.scope == nil, try !hasDefaultToken(in: transaction) else {
                return (false, copy)
            }
            try setDefaultTokenID(id, in: &transaction)
            return (true, copy)
        }
    }

    /// Rewrites a token record's metadata and index terms, and its token when `secret` is given (a
    /// refresh), in one transaction, if the record is still at `expectedVersion`. Without a secret the
    /// sealed token (and its access control) is kept as it is, so changing tags needs no proof.
    ///
    /// - Returns: The record's new version.
    /// - Throws: ``VaultError/notFound(_:)`` when the id is not stored, ``VaultError/conflict(_:)``
    ///   when the record is at another version (read it again and merge),
    ///   ``VaultError/accessDenied(_:)`` for a token of a group outside a scoped unlock.
    @discardableResult
    package func updateTokenRecord(
        id: String, metadata: [UInt8], terms: [IndexTerm], secret: [UInt8]?, expectedVersion: UInt64
    ) throws -> UInt64 {
        try write(rerunnable: true) { transaction in
            let lookup = tokenLookup(id, transaction.keys)
            guard let existing = try transaction.row(lookup: lookup) else {
                throw VaultError.notFound("a token with this id")
            }
            let groups = try candidateGroups(in: transaction.records, keys: transaction.keys)
            let (previous, domain) = try openToken(existing, groups: groups, keys: transaction.keys)
            try Self.check(existing, expectedVersion: expectedVersion)
            let policy = domain.policy
            let device = policy.accessibility.isDeviceBound ? try deviceSecret(creating: false) : nil
            try storeItem(
                ItemContent(name: id, metadata: metadata, value: secret, terms: terms), kind: .token, lookup: lookup,
                policy: policy, device: device, replacing: existing, replacedTerms: previous.terms,
                existingGroups: groups, in: &transaction)
            return existing.version + 1
        }
    }

    /// One token record's metadata, or `nil` when the id is not stored.
    ///
    /// - Throws: ``VaultError/accessDenied(_:)`` for a token of a group outside a scoped unlock.
    package func tokenRecordMetadata(id: String) throws -> TokenRecordMetadata? {
        try read(prefetching: { keys in [tokenLookup(id, keys), GroupDirectory.lookup(keys)] }) { records, keys in
            guard let row = try records.row(lookup: tokenLookup(id, keys)) else { return nil }
            return try metadata(of: row, groups: candidateGroups(in: records, keys: keys), keys: keys)
        }
    }

    /// The metadata of every token record this unlock can see. Records of access groups outside a
    /// scoped unlock and records bound to another device are not listed; a record whose class is
    /// locked makes the whole call fail with ``VaultError/locked`` rather than return a shorter list.
    /// Served from the unlock's cache: only records written since the last listing are opened.
    package func allTokenRecordMetadata() throws -> [TokenRecordMetadata] {
        let (cache, uncached) = try listedTokenRecords()
        return cache?.listed ?? uncached
    }

    /// The token bytes of a record, asking `context` for the proofs its access control needs.
    ///
    /// - Returns: `nil` when the id is not stored.
    package func tokenRecordSecret(
        id: String, authenticationContext: (any AuthenticationContext)?, prompt: String?
    ) throws -> [UInt8]? {
        try tokenRecord(id: id, authenticationContext: authenticationContext, prompt: prompt)?.secret
    }

    /// A token record's metadata (with its version) and token bytes, from one snapshot, asking
    /// `context` for the proofs its access control needs: what a compare-and-swap write starts from.
    ///
    /// - Parameter generation: The key generation taken before the call, for a copy of the record
    ///   to keep (``SealedRecordCopy``); `nil` for none.
    /// - Returns: `nil` when the id is not stored; the copy is `nil` without a generation and for
    ///   an access-controlled record.
    /// - Throws: ``VaultError/accessDenied(_:)`` for a token of a group outside a scoped unlock,
    ///   ``VaultError/interactionRequired`` without a needed proof.
    package func tokenRecord(
        id: String, authenticationContext: (any AuthenticationContext)?, prompt: String?,
        copyFor generation: VaultKeyGeneration? = nil
    ) throws -> (metadata: TokenRecordMetadata, secret: [UInt8], copy: SealedRecordCopy?)? {
        var found: (metadata: TokenRecordMetadata, copy: SealedRecordCopy?)?
        let secret = try readItemValue(
            authenticationContext: authenticationContext, prompt: prompt,
            prefetching: { keys in [tokenLookup(id, keys), GroupDirectory.lookup(keys)] }
        ) { records, keys in
            guard let row = try records.row(lookup: tokenLookup(id, keys)) else { return nil }
            let (envelope, domain) = try openToken(
                row, groups: candidateGroups(in: records, keys: keys), keys: keys, readingTerms: false)
            found = (
                TokenRecordMetadata(envelope, domain: domain, row: row),
                SealedRecordCopy(row, domain: domain, generation: generation)
            )
            return (row, envelope)
        }
        guard let secret, let found else { return nil }
        return (found.metadata, secret, found.copy)
    }

    /// Removes a token record, if it is at `expectedVersion` when one is given, and clears the
    /// default in the same transaction if it was the default.
    ///
    /// A scoped unlock does not touch the default (it is vault-wide): if it removes the default
    /// token, the default names a missing token, which reads as no default.
    /// - Returns: Whether it was the default (always `false` through a scoped unlock). Removing a
    ///   missing id does nothing.
    /// - Throws: ``VaultError/conflict(_:)`` when the record is at another version than expected,
    ///   ``VaultError/accessDenied(_:)`` for a token of a group outside a scoped unlock.
    @discardableResult
    package func removeTokenRecord(id: String, expectedVersion: UInt64? = nil) throws -> Bool {
        try write(rerunnable: true) { transaction in
            if let existing = try transaction.row(lookup: tokenLookup(id, transaction.keys)) {
                let groups = try candidateGroups(in: transaction.records, keys: transaction.keys)
                let (envelope, domain) = try openToken(existing, groups: groups, keys: transaction.keys)
                if let expectedVersion { try Self.check(existing, expectedVersion: expectedVersion) }
                try transaction.delete(existing)
                if let terms = envelope.terms {
                    try transaction.reindex(recordID: existing.id, from: terms, to: [], group: domain.accessGroup)
                }
            } else if expectedVersion != nil {
                throw VaultError.conflict("the token record was removed")
            }
            guard transaction.keys.scope == nil, try namedDefault(in: transaction.records, keys: transaction.keys) == id
            else { return false }
            try setDefaultTokenID(nil, in: &transaction)
            return true
        }
    }

    /// The default token's id, or `nil` (also when it names a token that is no longer stored).
    ///
    /// - Throws: ``VaultError/accessDenied(_:)`` through a scoped unlock: the default is vault-wide
    ///   and may name another group's token.
    package func defaultTokenRecordID() throws -> String? {
        try read { records, keys in
            guard keys.scope == nil else { throw Self.outOfScope }
            return try defaultTokenID(in: records, keys: keys)
        }
    }

    /// Sets (or clears, with `nil`) the default token id.
    ///
    /// - Throws: ``VaultError/notFound(_:)`` for an id that is not stored,
    ///   ``VaultError/accessDenied(_:)`` through a scoped unlock.
    package func setDefaultTokenRecordID(_ id: String?) throws {
        try write(rerunnable: true) { transaction in
            guard transaction.keys.scope == nil else { throw Self.outOfScope }
            if let id, try !transaction.records.containsRow(lookup: tokenLookup(id, transaction.keys)) {
                throw VaultError.notFound("a token with this id")
            }
            try setDefaultTokenID(id, in: &transaction)
        }
    }

    /// Makes the stored token `id` the default if there is none, in one transaction: for a token
    /// already stored, what ``insertTokenRecord(id:metadata:terms:secret:policy:defaultIfNone:)``
    /// does for a new one. Through a scoped unlock it does nothing (the default is vault-wide).
    ///
    /// - Returns: Whether it became the default.
    /// - Throws: ``VaultError/notFound(_:)`` for an id that is not stored (when there is no default).
    package func setDefaultTokenRecordIDIfNone(_ id: String) throws -> Bool {
        // A read first: there is a default nearly always, and a read takes no write lock.
        let unset = try read { records, keys in
            try keys.scope == nil && defaultTokenID(in: records, keys: keys) == nil
        }
        guard unset else { return false }
        return try write(rerunnable: true) { transaction in
            guard transaction.keys.scope == nil, try !hasDefaultToken(in: transaction) else { return false }
            guard try transaction.records.containsRow(lookup: tokenLookup(id, transaction.keys)) else {
                throw VaultError.notFound("a token with this id")
            }
            try setDefaultTokenID(id, in: &transaction)
            return true
        }
    }

    // MARK: Internals

    /// The access group of the stored token `id` (`.some(nil)` for none), or `nil` when it is not
    /// stored.
    ///
    /// - Throws: ``VaultError/accessDenied(_:)`` for a token of a group outside a scoped unlock.
    func tokenGroup(_ id: String, in records: any RecordReader, keys: KeyRing) throws -> String?? {
        guard let stored = try records.row(lookup: tokenLookup(id, keys)) else { return nil }
        return .some(
            try openToken(stored, groups: candidateGroups(in: records, keys: keys), keys: keys).domain.accessGroup)
    }

    /// A token's look-up tag, filed vault-wide whatever its group; `remembering: false` for a name
    /// seen once, such as a new id or a listed record's (``KeyRing/lookup(kind:accessGroup:name:remembering:)``).
    private func tokenLookup(_ id: String, _ keys: KeyRing, remembering: Bool = true) -> [UInt8] {
        keys.lookup(kind: .token, accessGroup: nil, name: id, remembering: remembering)
    }

    private static func check(_ row: RecordRow, expectedVersion: UInt64) throws {
        guard row.version == expectedVersion else {
            throw VaultError.conflict("the token record was written since it was read")
        }
    }

    func openToken(_ row: RecordRow, groups: [String?], keys: KeyRing, readingTerms: Bool = true) throws -> (
        envelope: ItemEnvelope, domain: Domain
    ) {
        guard row.kind == .token else { throw VaultError.integrity("a look-up tag points at another kind of record") }
        let opened: (envelope: ItemEnvelope, domain: Domain)
        do {
            opened = try openItem(row, groups: groups, keys: keys, readingTerms: readingTerms)
        } catch let error as VaultError {
            // Token ids are filed vault-wide, so a scoped unlock meets other groups' tokens. It
            // holds neither their names nor their keys: a row whose domain is none of its groups
            // is, as far as it can tell, out of its scope (`verify()` through a full unlock is what
            // tells such a row from a damaged one).
            if case .integrity = error, keys.scope != nil, try !isInScope(row, keys: keys) { throw Self.outOfScope }
            throw error
        }
        guard keys.isInScope(opened.domain.accessGroup) else { throw Self.outOfScope }
        // Not remembered: a listing checks every record's tag once, and keeping each would push
        // out the few tags writes use again.
        guard row.lookup == tokenLookup(opened.envelope.name, keys, remembering: false) else {
            throw VaultError.integrity("a record does not hold the token it is filed under")
        }
        return opened
    }

    /// Whether the row's domain is one of the groups of this unlock's scope.
    private func isInScope(_ row: RecordRow, keys: KeyRing) throws -> Bool {
        let groups = keys.scope.map(Array.init) ?? []
        return try row.domain(among: groups, keys: keys, device: deviceSecret(creating: false)) != nil
    }

    func metadata(of row: RecordRow, groups: [String?], keys: KeyRing) throws -> TokenRecordMetadata {
        let (envelope, domain) = try openToken(row, groups: groups, keys: keys, readingTerms: false)
        return TokenRecordMetadata(envelope, domain: domain, row: row)
    }

    static let defaultTokenName = "default token"

    /// Whether a default token is stored. While this process knows it is, nothing is read: every
    /// store asks, and nearly always there is one.
    private func hasDefaultToken(in transaction: RecordTransaction) throws -> Bool {
        if transaction.knowsDefaultNamesStoredToken { return true }
        guard try defaultTokenID(in: transaction.records, keys: transaction.keys) != nil else { return false }
        transaction.noteDefaultNamesStoredToken()
        return true
    }

    /// The default token's id if that token is still stored: a scoped unlock may have removed it
    /// without seeing the default.
    private func defaultTokenID(in records: any RecordReader, keys: KeyRing) throws -> String? {
        guard let id = try namedDefault(in: records, keys: keys) else { return nil }
        return try records.containsRow(lookup: tokenLookup(id, keys)) ? id : nil
    }

    /// The id the default row names, stored or not. Stores read it until a write finds the default
    /// stored, so the session remembers what it opened (``OpenedRows``).
    private func namedDefault(in records: any RecordReader, keys: KeyRing) throws -> String? {
        let lookup = keys.lookup(kind: .defaultToken, accessGroup: nil, name: Self.defaultTokenName)
        guard let stored = try records.row(lookup: lookup) else { return nil }
        let open = { try stored.open(key: keys.metadataKey(forGroup: nil), vaultID: self.vaultID) }
        let bytes =
            try openedRows(for: keys)?.plaintext(
                of: stored.sealed, authenticating: stored.associatedData(vaultID: vaultID), key: lookup, open: open)
            ?? open()
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    private func setDefaultTokenID(_ id: String?, in transaction: inout RecordTransaction) throws {
        let lookup = transaction.keys.lookup(kind: .defaultToken, accessGroup: nil, name: Self.defaultTokenName)
        try transaction.upsertMetadata(
            Array((id ?? "").utf8), kind: .defaultToken, lookup: lookup,
            replacing: transaction.row(lookup: lookup))
    }
}
