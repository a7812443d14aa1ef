import Foundation
import Locking
import OAuth2
import VaultCore

/// A stored token and what can be done with it: the library's main entry point for apps.
///
/// There is one instance per stored id in a process; ``with(id:prompt:authenticationContext:)``,
/// ``default`` and ``find(where:prompt:authenticationContext:)`` all return it. Thread-safe.
///
/// The process keeps an instance only while something holds it (your code, or its running
/// automatic refresh): one nobody holds is released with its copy of the token, its context and
/// its cached user info, so a server storing a token per user does not keep them all in memory.
/// The next look-up of that id makes a new instance, which is then the only one.
///
/// ```swift
/// try Credential.use(vault)
/// let credential = try Credential.store(token, tags: ["displayName": "My User"])
/// if let credential = Credential.default { ... }
/// ```
public final class Credential: Sendable, Identifiable, Equatable {
    struct State {
        /// The token as last read, or `nil` once the keys it was read with were wiped.
        var held: HeldToken?
        /// Bumped whenever ``held`` is replaced, so a slow read never overwrites a newer token.
        var heldVersion: UInt64 = 0
        /// The token without its secrets: what ``token`` gives when the token cannot be read.
        var redacted: Token
        var metadata: Token.Metadata
        /// The context for reading the token back in this process (the last one given).
        var context: (any AuthenticationContext)?
        var removed = false
        /// The client ``oauth2`` made.
        var client: OAuth2Client?
        /// The refresh in flight, which every concurrent caller joins.
        var refreshFlight: Task<Token, any Error>?
        /// The automatic refresh loop, when running, with an id the loop clears itself by.
        var automaticRefreshLoop: (id: UUID, task: Task<Void, Never>)?
        /// The answer of the last successful ``userInfo()``.
        var userInfo: UserInfo?
    }

    /// The token's id (stable across refreshes).
    public let id: String
    /// The storage the token lives in.
    let storage: any TokenStorage
    /// The vault behind ``storage``, if it is one: its key generations decide how long a read
    /// token may be kept.
    let vault: Vault?
    /// The client for the token's issuer and client id. Its requests go through
    /// ``Credential/httpClient`` as it is when each request is sent. Made on first use: most
    /// credentials a store or a `find` returns never send a request.
    public var oauth2: OAuth2Client {
        state.withLock { state in
            if let client = state.client { return client }
            let made = OAuth2Client(
                issuer: clientContext.issuer, clientID: clientContext.clientID,
                clientSecret: clientContext.clientSecret, scopes: clientContext.scopes,
                httpClient: CurrentCredentialHTTPClient(), requestTimeout: requestTimeout)
            state.client = made
            return made
        }
    }
    /// What ``oauth2`` is made from: the token's issuer, client id, client secret and scopes.
    private let clientContext: Token.Context
    private let requestTimeout: TimeInterval
    /// Everything that changes, behind one lock: a store or a `find` makes many credentials, and
    /// each lock is two allocations.
    let state: Locked<State>

    init(
        token: Token, metadata: Token.Metadata, storage: any TokenStorage, context: (any AuthenticationContext)?,
        generation: VaultKeyGeneration?, copy: SealedRecordCopy? = nil, requestTimeout: TimeInterval
    ) {
        id = token.id
        self.storage = storage
        vault = (storage as? VaultTokenStorage)?.vault
        clientContext = token.context
        self.requestTimeout = requestTimeout
        let redacted = token.withoutSecrets()
        state = Locked(
            State(
                held: HeldToken(token, redacted: redacted, vault: vault, generation: generation, copy: copy),
                redacted: redacted, metadata: metadata.keepingClaimsOnly(), context: context))
    }

    /// The current token, or, when it cannot be read now, the same token without its secrets.
    ///
    /// A token read from a vault is kept only as long as the keys it was read with: ``Vault/lock()``
    /// wipes every kept copy, and so does the end of the unlock session (idle or absolute timeout).
    /// The next use reads the token from the vault again, asking the credential's authentication
    /// context for a proof if the token is access-controlled. When that read fails (the vault is
    /// locked, a `whenUnlocked` class outlived its session, no proof), this property gives the token
    /// with an empty `accessToken` and no refresh token, ID token, device secret or client secret;
    /// its id, type, expiry, scope, issuer and client id stay. It never throws, so call
    /// ``currentToken()`` to learn why, and ``authorize(request:)`` to use the token: both throw.
    /// A removed credential gives its last token while its keys are held.
    public var token: Token {
        if let token = try? currentToken(prompt: nil, context: nil) { return token }
        return heldToken() ?? state.withLock { $0.redacted }
    }

    /// The current token, read from storage again when the kept copy was wiped.
    ///
    /// - Returns: The token with all its secrets.
    /// - Throws: ``CredentialError/storage(_:)`` with ``VaultError/locked`` when the vault (or the
    ///   token's class) is locked, ``VaultError/interactionRequired`` when an access-controlled
    ///   token needs a proof the credential's context cannot give; ``CredentialError/removed(_:)``.
    public func currentToken() throws -> Token {
        try currentToken(prompt: nil, context: nil)
    }

    /// The app's tags; setting them persists them, as Okta's `tags` does.
    ///
    /// A setter cannot throw: a write that fails (the credential was removed, the storage refused)
    /// leaves the tags as they were, which reading them back shows. Call ``setTags(_:)`` to learn why.
    public var tags: [String: String] {
        get { state.withLock { $0.metadata.tags } }
        set { try? setTags(newValue) }
    }

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
            let updated = stored.metadata.withTags(tags)
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
        state.withLock { state in
            state.removed = true
            state.userInfo = nil
        }
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

    /// The token, kept again if the kept copy was wiped: read from storage with `context` (or the
    /// credential's own), which becomes the credential's context when given.
    func currentToken(prompt: String?, context given: (any AuthenticationContext)?) throws -> Token {
        let (removed, version, context) = state.withLock { ($0.removed, $0.heldVersion, given ?? $0.context) }
        guard !removed else { throw CredentialError.removed(id) }
        if let token = heldToken() { return token }
        let generation = vault?.keyGeneration  // before the read: a wipe during it then counts
        guard let token = try storage.token(id: id, prompt: prompt, authenticationContext: context) else {
            throw CredentialError.removed(id)
        }
        let redacted = token.withoutSecrets()
        let held = HeldToken(token, redacted: redacted, vault: vault, generation: generation)
        state.withLock { state in
            if let given { state.context = given }
            guard state.heldVersion == version else { return }  // a refresh kept a newer token meanwhile
            state.held = held
            state.heldVersion += 1
            state.redacted = redacted
        }
        return token
    }

    /// Makes sure the token can be read now, reading it again (with `context`) if its copy was
    /// wiped; cheap when the copy is still readable.
    func ensureReadable(prompt: String?, context: (any AuthenticationContext)?) throws {
        let held = try checked { $0.held }
        if let held, held.isReadable(in: vault) { return }
        _ = try currentToken(prompt: prompt, context: context)
    }

    /// The kept token if its keys are still held; a copy found unreadable is dropped.
    private func heldToken() -> Token? {
        let (held, version) = state.withLock { ($0.held, $0.heldVersion) }
        guard let held else { return nil }
        if let token = held.token(in: vault) { return token }
        state.withLock { state in
            if state.heldVersion == version { state.held = nil }
        }
        return nil
    }

    /// The token as ``token`` would give it, without reading storage (for mirrors).
    var tokenWithoutReading: Token {
        heldToken() ?? state.withLock { $0.redacted }
    }

    /// The token's id, type and expiry (its secrets left out); never reads storage.
    var redactedToken: Token { state.withLock { $0.redacted } }

    /// The context for reading the token back.
    var authenticationContext: (any AuthenticationContext)? { state.withLock { $0.context } }

    /// Keeps a token that storage now holds (after a refresh was persisted), with its metadata.
    ///
    /// - Parameter generation: The vault's key generation taken before storage was read or written
    ///   for it; if it has ended, the token is not kept.
    func update(token: Token, metadata: Token.Metadata, generation: VaultKeyGeneration?) {
        let redacted = token.withoutSecrets()
        let held = HeldToken(token, redacted: redacted, vault: vault, generation: generation)
        let metadata = metadata.keepingClaimsOnly()
        state.withLock { state in
            state.held = held
            state.heldVersion += 1
            state.redacted = redacted
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
