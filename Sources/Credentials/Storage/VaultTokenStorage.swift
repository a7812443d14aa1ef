import Foundation
import OAuth2
import VaultCore

/// Tokens in an encrypted ``Vault``: each token record keeps its metadata (tags, ID-token claims)
/// sealed with its policy's domain key, and the token sealed behind the policy (access control
/// included), so `find(where:)` never needs a proof and only opening a token does.
public final class VaultTokenStorage: TokenStorage {
    /// The version of the metadata and token encodings inside a record.
    static let recordVersion = 1

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

    public func replace(token: Token, metadata: Token.Metadata) throws {
        try translating(id: token.id) {
            try vault.updateTokenRecord(id: token.id, metadata: Self.encode(metadata), secret: Self.encode(token))
        }
    }

    public func setMetadata(_ metadata: Token.Metadata) throws {
        try translating(id: metadata.id) {
            try vault.updateTokenRecord(id: metadata.id, metadata: Self.encode(metadata), secret: nil)
        }
    }

    public func remove(id: String) throws -> Bool {
        try translating(id: id) { try vault.removeTokenRecord(id: id) }
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

    public func allMetadata() throws -> [Token.Metadata] {
        try translating {
            try vault.allTokenRecordMetadata().map { try Self.decode(Token.Metadata.self, from: $0.metadata) }
        }
    }

    public func acquireRefreshLease(id: String, owner: String, duration: TimeInterval) throws -> Bool {
        try translating { try vault.acquireLease("refresh " + id, owner: owner, duration: duration) }
    }

    public func releaseRefreshLease(id: String, owner: String) throws {
        try translating { try vault.releaseLease("refresh " + id, owner: owner) }
    }

    // MARK: Encoding

    /// A versioned wrapper, so later encodings can migrate what this one wrote.
    private struct Versioned<Value: Codable>: Codable {
        let v: Int
        let value: Value
    }

    static func encode<Value: Codable>(_ value: Value) throws -> [UInt8] {
        Array(try JSONEncoder().encode(Versioned(v: recordVersion, value: value)))
    }

    static func decode<Value: Codable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
        guard let versioned = try? JSONDecoder().decode(Versioned<Value>.self, from: Data(bytes)) else {
            throw CredentialError.corruptRecord("a token record does not decode")
        }
        guard versioned.v == recordVersion else {
            throw CredentialError.storage(.unsupportedFormat("token record version \(versioned.v)"))
        }
        return versioned.value
    }

    private func translating<Result>(id: String? = nil, _ body: () throws -> Result) throws -> Result {
        do {
            return try CredentialError.translating(body)
        } catch CredentialError.storage(.alreadyExists) {
            throw CredentialError.alreadyExists(id ?? "")
        } catch CredentialError.storage(.notFound) {
            throw CredentialError.notFound(id ?? "")
        }
    }
}
