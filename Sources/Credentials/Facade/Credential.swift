import Foundation
import Locking
import OAuth2
import VaultCore

/// A stored token and what can be done with it: the library's main entry point for apps.
///
/// There is one instance per stored id in a process; ``with(id:prompt:authenticationContext:)``,
/// ``default`` and ``find(where:prompt:authenticationContext:)`` all return it. Thread-safe.
///
/// ```swift
/// try Credential.use(vault)
/// let credential = try Credential.store(token, tags: ["displayName": "My User"])
/// if let credential = Credential.default { ... }
/// ```
public final class Credential: Sendable, Identifiable, Equatable {
    struct State {
        var token: Token
        var metadata: Token.Metadata
        var removed = false
    }

    /// The token's id (stable across refreshes).
    public let id: String
    /// The storage the token lives in.
    let storage: any TokenStorage
    /// The context for reading the token back in this process.
    let authenticationContext: (any AuthenticationContext)?
    /// The client for the token's issuer and client id.
    public let oauth2: OAuth2Client
    private let state: Locked<State>
    /// The refresh in flight, which every concurrent caller joins.
    let refreshFlight = Locked<Task<Token, any Error>?>(nil)
    /// The automatic refresh loop, when running, with an id the loop clears itself by.
    let automaticRefresh = Locked<(id: UUID, task: Task<Void, Never>)?>(nil)

    init(
        token: Token, metadata: Token.Metadata, storage: any TokenStorage, context: (any AuthenticationContext)?,
        requestTimeout: TimeInterval
    ) {
        id = token.id
        self.storage = storage
        authenticationContext = context
        oauth2 = OAuth2Client(
            issuer: token.context.issuer, clientID: token.context.clientID, clientSecret: token.context.clientSecret,
            scopes: token.context.scopes, requestTimeout: requestTimeout)
        state = Locked(State(token: token, metadata: metadata))
    }

    deinit {
        automaticRefresh.withLock { $0?.task.cancel() }
    }

    /// The current token.
    public var token: Token { state.withLock { $0.token } }

    /// The app's tags.
    public var tags: [String: String] { state.withLock { $0.metadata.tags } }

    /// The metadata `find(where:)` sees: id, tags, ID-token claims.
    public var metadata: Token.Metadata { state.withLock { $0.metadata } }

    /// Replaces the tags, persistently. Needs no proof, even for access-controlled tokens.
    ///
    /// Only the tags change: the write compares the record's version with the one just read, and
    /// reads again if another task or process wrote the token meanwhile, so its newer claims are
    /// kept.
    /// - Parameter tags: The new tags.
    /// - Throws: ``CredentialError/removed(_:)``, ``CredentialError/notFound(_:)`` when the token is
    ///   no longer stored, ``CredentialError/conflict(_:)``, ``CredentialError/storage(_:)``.
    public func setTags(_ tags: [String: String]) throws {
        _ = try checked { $0 }
        for _ in 0..<Self.maximumWriteAttempts {
            guard let stored = try storage.storedMetadata(id: id) else { throw CredentialError.notFound(id) }
            let updated = Token.Metadata(id: id, tags: tags, claims: stored.metadata.claims)
            do {
                _ = try storage.setMetadata(updated, expectedVersion: stored.version)
            } catch CredentialError.conflict {
                continue
            }
            state.withLock { $0.metadata = updated }
            return
        }
        throw CredentialError.conflict(id)
    }

    /// Removes the token from storage, locally (no network; revoke first to end it at the server).
    /// If it was the default there is no default afterwards. Later calls on this instance fail with
    /// ``CredentialError/removed(_:)``.
    ///
    /// - Throws: ``CredentialError/removed(_:)`` if already removed, ``CredentialError/storage(_:)``.
    public func remove() throws {
        _ = try checked { $0 }
        didRemove(wasDefault: try storage.remove(id: id))
    }

    /// Marks this instance removed after its token was removed from storage.
    func didRemove(wasDefault: Bool) {
        state.withLock { $0.removed = true }
        stopAutomaticRefresh()
        CredentialCoordinator.shared.forget(self)
        if wasDefault { CredentialCoordinator.shared.postDefaultChanged(nil) }
    }

    /// How many times a write that lost a compare-and-swap reads the token again and retries.
    static let maximumWriteAttempts = 8

    /// Whether ``remove()`` was called.
    public var isRemoved: Bool { state.withLock { $0.removed } }

    /// Identity: one instance per id.
    public static func == (lhs: Credential, rhs: Credential) -> Bool { lhs === rhs }

    /// Replaces the in-memory token and metadata (after a refresh was persisted).
    func update(token: Token, metadata: Token.Metadata) {
        state.withLock { state in
            state.token = token
            state.metadata = metadata
        }
    }

    /// Reads the state, failing for a removed credential.
    func checked<Result>(_ body: (State) -> Result) throws -> Result {
        try state.withLock { state in
            guard !state.removed else { throw CredentialError.removed(id) }
            return body(state)
        }
    }
}
