import Foundation
import OAuth2
import VaultCore

/// Tokens in an encrypted ``Vault``: each token record keeps its metadata (tags, ID-token claims)
/// sealed with its policy's domain key, and the token sealed behind the policy (access control
/// included), so `find(where:)` never needs a proof and only opening a token does.
///
/// Every write compares the record's version with the one read (``CredentialError/conflict(_:)``
/// otherwise). Through a vault unlocked with a key slot scoped to access groups, the tokens of other
/// groups are skipped by ``allIDs()`` and ``allMetadata()`` and refused (``VaultError/accessDenied(_:)``)
/// by every other call, and the default token id, which is vault-wide, can be neither read nor set.
public final class VaultTokenStorage: TokenStorage {
    /// The vault.
    public let vault: Vault

    /// Token storage in `vault`.
    ///
    /// A vault of format version 2 is upgraded first, through a full-access unlock, in one
    /// transaction: every token record's metadata is re-encoded and filed in the index. Through a
    /// scoped unlock it stays as it is: its tokens read and are found by reading every record, and
    /// writing one is refused until a full-access unlock has upgraded the vault.
    ///
    /// - Parameter vault: An unlocked vault.
    /// - Throws: ``CredentialError/storage(_:)`` with ``VaultError/locked`` when it is locked, or
    ///   with ``VaultError/integrity(_:)`` when the upgrade finds the vault damaged.
    public init(vault: Vault) throws {
        guard !vault.isLocked else { throw CredentialError.storage(.locked) }
        self.vault = vault
        try CredentialError.translating {
            guard try !vault.indexesTokenRecords else { return }
            try vault.upgradeTokenRecords { try TokenRecordCoding.upgradedMetadata($0.metadata) }
        }
    }

    public func defaultTokenID() throws -> String? {
        try translating { try vault.defaultTokenRecordID() }
    }

    public func setDefaultTokenID(_ id: String?) throws {
        try translating(id: id) { try vault.setDefaultTokenRecordID(id) }
    }

    /// Checks and sets the default in one vault transaction; through an unlock scoped to access
    /// groups it does nothing (the default is vault-wide), as a store does.
    public func setDefaultTokenIDIfNone(_ id: String) throws -> Bool {
        try translating(id: id) { try vault.setDefaultTokenRecordIDIfNone(id) }
    }

    /// Served from the vault's cache of this unlock, as ``allMetadata()`` is, without decoding
    /// any token's metadata.
    public func allIDs() throws -> [String] {
        try translating { try vault.tokenRecordIDs() }
    }

    public func add(token: Token, metadata: Token.Metadata, security: [Credential.Security]) throws -> Bool {
        try add(token: token, metadata: metadata, policy: Credential.Security.resolve(security).policy, copyFor: nil)
            .becameDefault
    }

    /// ``add(token:metadata:security:)`` with the security options already resolved to `policy`,
    /// also giving the record as sealed for the credential to keep (`nil` without a generation, or
    /// for an access-controlled token).
    func add(
        token: Token, metadata: Token.Metadata, policy: VaultPolicy, copyFor generation: VaultKeyGeneration?
    ) throws -> (becameDefault: Bool, copy: SealedRecordCopy?) {
        try translating(id: token.id) {
            try vault.insertTokenRecord(
                id: token.id, metadata: Self.encode(metadata), terms: metadata.indexTerms, secret: Self.encode(token),
                policy: policy, defaultIfNone: true, copyFor: generation)
        }
    }

    public func replace(token: Token, metadata: Token.Metadata, expectedVersion: UInt64) throws -> UInt64 {
        try translating(id: token.id) {
            try vault.updateTokenRecord(
                id: token.id, metadata: Self.encode(metadata), terms: metadata.indexTerms, secret: Self.encode(token),
                expectedVersion: expectedVersion)
        }
    }

    public func setMetadata(_ metadata: Token.Metadata, expectedVersion: UInt64) throws -> UInt64 {
        try translating(id: metadata.id) {
            try vault.updateTokenRecord(
                id: metadata.id, metadata: Self.encode(metadata), terms: metadata.indexTerms, secret: nil,
                expectedVersion: expectedVersion)
        }
    }

    public func remove(id: String, expectedVersion: UInt64?) throws -> Bool {
        try translating(id: id) { try vault.removeTokenRecord(id: id, expectedVersion: expectedVersion) }
    }

    public func token(id: String, prompt: String?, authenticationContext: (any AuthenticationContext)?) throws -> Token?
    {
        try translating(id: id) {
            try vault.tokenRecordSecret(id: id, authenticationContext: authenticationContext, prompt: prompt)
                .map { try Self.decode(Token.self, from: $0) }
        }
    }

    public func metadata(id: String) throws -> Token.Metadata? {
        try translating(id: id) {
            try vault.tokenRecordMetadata(id: id).map { try Self.decode(Token.Metadata.self, from: $0.metadata) }
        }
    }

    public func storedToken(
        id: String, prompt: String?, authenticationContext: (any AuthenticationContext)?
    ) throws -> StoredToken? {
        let generation = vault.keyGeneration  // before the read: a wipe during it then counts
        return try translating(id: id) {
            try vault.tokenRecord(
                id: id, authenticationContext: authenticationContext, prompt: prompt, copyFor: generation
            ).map {
                StoredToken(
                    token: try Self.decode(Token.self, from: $0.secret),
                    metadata: try Self.decode(Token.Metadata.self, from: $0.metadata.metadata),
                    version: $0.metadata.version, copy: $0.copy)
            }
        }
    }

    public func storedMetadata(id: String) throws -> StoredMetadata? {
        try translating(id: id) {
            try vault.tokenRecordMetadata(id: id).map {
                StoredMetadata(metadata: try Self.decode(Token.Metadata.self, from: $0.metadata), version: $0.version)
            }
        }
    }

    /// Every token's metadata this unlock can see: through an unlock scoped to access groups, the
    /// other groups' tokens are skipped.
    ///
    /// Served from the vault's cache of this unlock: only tokens written since the last call (by
    /// any process) are read and decoded again.
    public func allMetadata() throws -> [Token.Metadata] {
        try translating { try vault.tokenMetadata(decodedBy: MetadataDecoder.self) }
    }

    /// Decodes a record's metadata as ``allMetadata()`` returns it.
    private enum MetadataDecoder: TokenMetadataDecoder {
        static func decode(_ record: TokenRecordMetadata) throws -> Token.Metadata {
            try VaultTokenStorage.decode(Token.Metadata.self, from: record.metadata)
        }
    }

    /// The tokens carrying all of `tags`, found through the vault's index: only the matches are
    /// opened. Without tags, every token's metadata.
    public func metadata(taggedWith tags: [String: String]) throws -> [Token.Metadata] {
        try indexed(tags.map { IndexTerm.tag($0.key, equals: $0.value) }) { $0.hasTags(tags) }
    }

    /// The tokens whose claim `claim` equals `value`: through the vault's index for the claims in
    /// ``Token/Metadata/indexedClaims``, by reading every token's metadata for the others.
    public func metadata(claim: String, equals value: String) throws -> [Token.Metadata] {
        let terms = Token.Metadata.indexedClaims.contains(claim) ? [IndexTerm.claim(claim, equals: value)] : []
        return try indexed(terms) { $0.claim(claim, equals: value) }
    }

    /// The metadata filed under every one of `terms`, filtered again by `matches` (which also
    /// filters every token's metadata when the vault has no index yet, or no term is given).
    private func indexed(_ terms: [IndexTerm], matches: (Token.Metadata) -> Bool) throws -> [Token.Metadata] {
        guard !terms.isEmpty,
            let records = try translating({ try vault.tokenRecordMetadata(matchingAll: terms) })
        else { return try allMetadata().filter(matches) }
        return try translating {
            try records.map { try Self.decode(Token.Metadata.self, from: $0.metadata) }.filter(matches)
        }
    }

    /// Takes the refresh lease of token `id`, after checking the token is in this unlock's scope.
    ///
    /// - Throws: ``CredentialError/notFound(_:)`` when the token is not stored,
    ///   ``CredentialError/storage(_:)`` with ``VaultError/accessDenied(_:)`` outside the scope.
    public func acquireRefreshLease(id: String, owner: String, duration: TimeInterval) throws -> Bool {
        try translating(id: id) { try vault.acquireTokenRefreshLease(id: id, owner: owner, duration: duration) }
    }

    public func releaseRefreshLease(id: String, owner: String) throws {
        try translating { try vault.releaseTokenRefreshLease(id: id, owner: owner) }
    }

    /// The vault's mark: a vault in PostgreSQL counts the commits it hears of on its channel.
    public func changeMark() -> UInt64 { vault.changeMark() }

    /// Waits as the vault does: until a commit is heard in PostgreSQL, at most 20 ms for a file.
    public func waitForChange(since mark: UInt64, timeout: Duration) async {
        await vault.waitForChange(since: mark, timeout: timeout)
    }

    // MARK: Encoding

    /// A record's bytes, in ``TokenRecordCoding``'s binary form.
    static func encode(_ token: Token) -> [UInt8] { TokenRecordCoding.encode(token) }

    /// A record's bytes, in ``TokenRecordCoding``'s binary form.
    static func encode(_ metadata: Token.Metadata) throws -> [UInt8] { try TokenRecordCoding.encode(metadata) }

    /// A token from a record's bytes, binary or legacy JSON.
    static func decode(_: Token.Type, from bytes: [UInt8]) throws -> Token {
        try TokenRecordCoding.decodeToken(bytes)
    }

    /// Metadata from a record's bytes, binary or legacy JSON; its claims are parsed on first access.
    static func decode(_: Token.Metadata.Type, from bytes: [UInt8]) throws -> Token.Metadata {
        try TokenRecordCoding.decodeMetadata(bytes)
    }

    private func translating<Result>(id: String? = nil, _ body: () throws -> Result) throws -> Result {
        do {
            return try CredentialError.translating(body)
        } catch CredentialError.storage(.alreadyExists) {
            throw CredentialError.alreadyExists(id ?? "")
        } catch CredentialError.storage(.notFound) {
            throw CredentialError.notFound(id ?? "")
        } catch CredentialError.storage(.conflict) {
            throw CredentialError.conflict(id ?? "")
        }
    }
}
