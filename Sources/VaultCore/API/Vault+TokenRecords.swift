import Foundation
import VaultStorage

/// A token record's public half, as the credential layer stores it.
package struct TokenRecordMetadata: Sendable {
    /// The token's id.
    package let id: String
    /// The metadata bytes (tags, claims), sealed with the domain key only.
    package let metadata: [UInt8]
    /// The record's policy, as stored.
    package let policy: VaultPolicy
}

/// Token records for the credential layer: metadata readable with the domain key alone, the token
/// behind the record's policy (access control included), and the default token id — each change in
/// one transaction. Package-internal: apps use `Credential` and `VaultTokenStorage`.
extension Vault {
    /// Stores a new token record; in the same transaction it becomes the default when
    /// `defaultIfNone` and there is none.
    ///
    /// - Returns: Whether it became the default.
    /// - Throws: ``VaultError/alreadyExists(_:)`` when the id is stored, and what
    ///   ``set(_:for:)`` throws for the policy.
    package func insertTokenRecord(
        id: String, metadata: [UInt8], secret: [UInt8], policy: VaultPolicy, defaultIfNone: Bool
    ) throws -> Bool {
        if let group = policy.accessGroup { try Self.checkGroupName(group) }
        let device = policy.accessibility.isDeviceBound ? try deviceSecret(creating: true) : nil
        return try write { transaction in
            let lookup = tokenLookup(id, transaction.keys)
            guard try row(lookup: lookup, in: transaction.db) == nil else {
                throw VaultError.alreadyExists("a token with this id")
            }
            try storeItem(
                ItemContent(name: id, metadata: metadata, value: secret), kind: .token, lookup: lookup, policy: policy,
                device: device, replacing: nil, in: &transaction)
            guard defaultIfNone, try defaultTokenID(in: transaction) == nil else { return false }
            try setDefaultTokenID(id, in: &transaction)
            return true
        }
    }

    /// Rewrites a token record's metadata, and its token when `secret` is given (a refresh), in one
    /// transaction. Without a secret the sealed token (and its access control) is kept as it is, so
    /// changing tags needs no proof.
    ///
    /// - Throws: ``VaultError/notFound(_:)`` when the id is not stored.
    package func updateTokenRecord(id: String, metadata: [UInt8], secret: [UInt8]?) throws {
        try write { transaction in
            let lookup = tokenLookup(id, transaction.keys)
            guard let existing = try row(lookup: lookup, in: transaction.db) else {
                throw VaultError.notFound("a token with this id")
            }
            let groups = try candidateGroups(in: transaction.db, keys: transaction.keys)
            let policy = try openItem(existing, groups: groups, keys: transaction.keys).domain.policy
            let device = policy.accessibility.isDeviceBound ? try deviceSecret(creating: false) : nil
            try storeItem(
                ItemContent(name: id, metadata: metadata, value: secret), kind: .token, lookup: lookup, policy: policy,
                device: device, replacing: existing, existingGroups: groups, in: &transaction)
        }
    }

    /// One token record's metadata, or `nil` when the id is not stored.
    package func tokenRecordMetadata(id: String) throws -> TokenRecordMetadata? {
        try read { db, keys in
            guard let row = try row(lookup: tokenLookup(id, keys), in: db) else { return nil }
            return try metadata(of: row, groups: candidateGroups(in: db, keys: keys), keys: keys)
        }
    }

    /// The metadata of every token record this unlock can see. Records of access groups outside a
    /// scoped unlock and records bound to another device are not listed; a record whose class is
    /// locked makes the whole call fail with ``VaultError/locked`` rather than return a shorter list.
    package func allTokenRecordMetadata() throws -> [TokenRecordMetadata] {
        try read { db, keys in
            let groups = try candidateGroups(in: db, keys: keys)
            let rows = try db.query(
                "SELECT \(RecordRow.columns) FROM records WHERE kind = ? ORDER BY record_id",
                [.integer(Int64(RecordKind.token.rawValue))], row: RecordRow.init)
            return try rows.compactMap { row in
                do {
                    return try metadata(of: row, groups: groups, keys: keys)
                } catch VaultError.unavailableOnThisDevice, VaultError.accessDenied {
                    return nil
                }
            }
        }
    }

    /// The token bytes of a record, asking `context` for the proofs its access control needs.
    ///
    /// - Returns: `nil` when the id is not stored.
    package func tokenRecordSecret(
        id: String, authenticationContext: (any AuthenticationContext)?, prompt: String?
    ) throws -> [UInt8]? {
        try readItemValue(authenticationContext: authenticationContext, prompt: prompt) { db, keys in
            guard let row = try row(lookup: tokenLookup(id, keys), in: db) else { return nil }
            return (row, try openToken(row, groups: candidateGroups(in: db, keys: keys), keys: keys).envelope)
        }
    }

    /// Removes a token record, and clears the default in the same transaction if it was the default.
    ///
    /// - Returns: Whether it was the default. Removing a missing id does nothing.
    @discardableResult
    package func removeTokenRecord(id: String) throws -> Bool {
        try write { transaction in
            if let existing = try row(lookup: tokenLookup(id, transaction.keys), in: transaction.db) {
                try transaction.delete(existing)
            }
            guard try defaultTokenID(in: transaction) == id else { return false }
            try setDefaultTokenID(nil, in: &transaction)
            return true
        }
    }

    /// The default token's id, or `nil`.
    package func defaultTokenRecordID() throws -> String? {
        try read { db, keys in try defaultTokenID(in: db, keys: keys) }
    }

    /// Sets (or clears, with `nil`) the default token id.
    ///
    /// - Throws: ``VaultError/notFound(_:)`` for an id that is not stored.
    package func setDefaultTokenRecordID(_ id: String?) throws {
        try write { transaction in
            if let id, try row(lookup: tokenLookup(id, transaction.keys), in: transaction.db) == nil {
                throw VaultError.notFound("a token with this id")
            }
            try setDefaultTokenID(id, in: &transaction)
        }
    }

    // MARK: Internals

    private func tokenLookup(_ id: String, _ keys: KeyRing) -> [UInt8] {
        keys.lookup(kind: .token, accessGroup: nil, name: id)
    }

    private func openToken(_ row: RecordRow, groups: [String?], keys: KeyRing) throws -> (
        envelope: ItemEnvelope, domain: Domain
    ) {
        guard row.kind == .token else { throw VaultError.integrity("a look-up tag points at another kind of record") }
        let opened = try openItem(row, groups: groups, keys: keys)
        guard row.lookup == tokenLookup(opened.envelope.name, keys) else {
            throw VaultError.integrity("a record does not hold the token it is filed under")
        }
        return opened
    }

    private func metadata(of row: RecordRow, groups: [String?], keys: KeyRing) throws -> TokenRecordMetadata {
        let (envelope, domain) = try openToken(row, groups: groups, keys: keys)
        return TokenRecordMetadata(id: envelope.name, metadata: envelope.metadata, policy: domain.policy)
    }

    static let defaultTokenName = "default token"

    private func defaultTokenID(in transaction: RecordTransaction) throws -> String? {
        try defaultTokenID(in: transaction.db, keys: transaction.keys)
    }

    private func defaultTokenID(in db: SQLiteConnection, keys: KeyRing) throws -> String? {
        let lookup = keys.lookup(kind: .defaultToken, accessGroup: nil, name: Self.defaultTokenName)
        guard let row = try row(lookup: lookup, in: db) else { return nil }
        let bytes = try row.open(key: keys.metadataKey, vaultID: vaultID)
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    private func setDefaultTokenID(_ id: String?, in transaction: inout RecordTransaction) throws {
        let lookup = transaction.keys.lookup(kind: .defaultToken, accessGroup: nil, name: Self.defaultTokenName)
        try transaction.upsertMetadata(
            Array((id ?? "").utf8), kind: .defaultToken, lookup: lookup,
            replacing: row(lookup: lookup, in: transaction.db))
    }
}
