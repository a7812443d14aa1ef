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
    /// - Parameter vault: An unlocked vault.
    /// - Throws: ``CredentialError/storage(_:)`` with ``VaultError/locked`` when it is locked.
    public init(vault: Vault) throws {
        guard !vault.isLocked else { throw CredentialError.storage(.locked) }
        self.vault = vault
    }

    public func defaultTokenID() throws -> String? {
        try translating { try vault.defaultTokenRecordID() }
    }

    public func setDefaultTokenID(_ id: String?) throws {
        try translating(id: id) { try vault.setDefaultTokenRecordID(id) }
    }

    public func allIDs() throws -> [String] {
        try allMetadata().map(\.id)
    }

    public func add(token: Token, metadata: Token.Metadata, security: [Credential.Security]) throws -> Bool {
        let (policy, _) = try Credential.Security.resolve(security)
        return try translating(id: token.id) {
            try vault.insertTokenRecord(
                id: token.id, metadata: Self.encode(metadata), secret: Self.encode(token), policy: policy,
                defaultIfNone: true)
        }
    }

    public func replace(token: Token, metadata: Token.Metadata, expectedVersion: UInt64) throws -> UInt64 {
        try translating(id: token.id) {
            try vault.updateTokenRecord(
                id: token.id, metadata: Self.encode(metadata), secret: Self.encode(token),
                expectedVersion: expectedVersion)
        }
    }

    public func setMetadata(_ metadata: Token.Metadata, expectedVersion: UInt64) throws -> UInt64 {
        try translating(id: metadata.id) {
            try vault.updateTokenRecord(
                id: metadata.id, metadata: Self.encode(metadata), secret: nil, expectedVersion: expectedVersion)
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
        try translating(id: id) {
            try vault.tokenRecord(id: id, authenticationContext: authenticationContext, prompt: prompt).map {
                StoredToken(
                    token: try Self.decode(Token.self, from: $0.secret),
                    metadata: try Self.decode(Token.Metadata.self, from: $0.metadata.metadata),
                    version: $0.metadata.version)
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
    public func allMetadata() throws -> [Token.Metadata] {
        try translating {
            try vault.allTokenRecordMetadata().map { try Self.decode(Token.Metadata.self, from: $0.metadata) }
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
