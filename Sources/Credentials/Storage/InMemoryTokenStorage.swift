import Locking
import OAuth2
import VaultCore

/// Tokens in memory only: the default storage until an app calls `Credential.use(_:)`, and the
/// storage for tests. Passes the same conformance suite as ``VaultTokenStorage``.
///
/// It encrypts nothing and enforces no policy, so it refuses every security option other than the
/// default (`afterFirstUnlock`, no group, no access control) with
/// ``VaultError/unsupportedPolicy(_:)`` rather than store a token with less protection than asked.
public final class InMemoryTokenStorage: TokenStorage {
    private struct Entry {
        var token: Token
        var metadata: Token.Metadata
        var version: UInt64 = 1
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var order: [String] = []
        var defaultID: String?
    }

    private let state = Locked(State())

    /// An empty storage.
    public init() {}

    public func defaultTokenID() throws -> String? { state.withLock { $0.defaultID } }

    public func setDefaultTokenID(_ id: String?) throws {
        try state.withLock { state in
            if let id, state.entries[id] == nil { throw CredentialError.notFound(id) }
            state.defaultID = id
        }
    }

    /// Checks and sets the default under one lock.
    public func setDefaultTokenIDIfNone(_ id: String) throws -> Bool {
        try state.withLock { state in
            guard state.defaultID == nil else { return false }
            guard state.entries[id] != nil else { throw CredentialError.notFound(id) }
            state.defaultID = id
            return true
        }
    }

    public func allIDs() throws -> [String] { state.withLock { $0.order } }

    public func add(token: Token, metadata: Token.Metadata, security: [Credential.Security]) throws -> Bool {
        guard try Credential.Security.resolve(security).policy == .default else {
            throw CredentialError.storage(
                .unsupportedPolicy("in-memory token storage enforces no security options; use VaultTokenStorage"))
        }
        return try state.withLock { state in
            guard state.entries[token.id] == nil else { throw CredentialError.alreadyExists(token.id) }
            state.entries[token.id] = Entry(token: token, metadata: metadata)
            state.order.append(token.id)
            guard state.defaultID == nil else { return false }
            state.defaultID = token.id
            return true
        }
    }

    public func replace(token: Token, metadata: Token.Metadata, expectedVersion: UInt64) throws -> UInt64 {
        try state.withLock { state in
            let version = try Self.checkedVersion(of: state.entries[token.id], id: token.id, expected: expectedVersion)
            state.entries[token.id] = Entry(token: token, metadata: metadata, version: version + 1)
            return version + 1
        }
    }

    public func setMetadata(_ metadata: Token.Metadata, expectedVersion: UInt64) throws -> UInt64 {
        try state.withLock { state in
            let version = try Self.checkedVersion(
                of: state.entries[metadata.id], id: metadata.id, expected: expectedVersion)
            state.entries[metadata.id]?.metadata = metadata
            state.entries[metadata.id]?.version = version + 1
            return version + 1
        }
    }

    public func remove(id: String, expectedVersion: UInt64?) throws -> Bool {
        try state.withLock { state in
            if let expectedVersion {
                guard let entry = state.entries[id] else { throw CredentialError.conflict(id) }
                guard entry.version == expectedVersion else { throw CredentialError.conflict(id) }
            }
            state.entries[id] = nil
            state.order.removeAll { $0 == id }
            guard state.defaultID == id else { return false }
            state.defaultID = nil
            return true
        }
    }

    public func token(id: String, prompt: String?, authenticationContext: (any AuthenticationContext)?) throws -> Token?
    {
        state.withLock { $0.entries[id]?.token }
    }

    public func metadata(id: String) throws -> Token.Metadata? {
        state.withLock { $0.entries[id]?.metadata }
    }

    public func storedToken(
        id: String, prompt: String?, authenticationContext: (any AuthenticationContext)?
    ) throws -> StoredToken? {
        state.withLock { state in
            state.entries[id].map { StoredToken(token: $0.token, metadata: $0.metadata, version: $0.version) }
        }
    }

    public func storedMetadata(id: String) throws -> StoredMetadata? {
        state.withLock { state in state.entries[id].map { StoredMetadata(metadata: $0.metadata, version: $0.version) } }
    }

    public func allMetadata() throws -> [Token.Metadata] {
        state.withLock { state in state.order.compactMap { state.entries[$0]?.metadata } }
    }

    /// The version of `entry`, after checking it exists and is the expected one.
    private static func checkedVersion(of entry: Entry?, id: String, expected: UInt64) throws -> UInt64 {
        guard let entry else { throw CredentialError.notFound(id) }
        guard entry.version == expected else { throw CredentialError.conflict(id) }
        return entry.version
    }
}
