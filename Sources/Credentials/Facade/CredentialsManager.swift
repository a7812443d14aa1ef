import Foundation
import OAuth2
import VaultCore

/// One signed-in user's credentials in the shape of Auth0's `CredentialsManager`: store them,
/// ask whether they are valid, get them renewed when they are about to expire, revoke them. A thin
/// layer over ``Credential`` (single-flight refresh included) in ``Credential/tokenStorage``.
///
/// A manager keeps one token, tagged with its ``name``; several managers can share a storage. Every
/// failure is a ``CredentialsManagerError``.
///
/// ```swift
/// let manager = CredentialsManager(name: "api")
/// try manager.store(credentials: token)
/// let valid = try await manager.credentials(minTTL: 60)
/// ```
public final class CredentialsManager: Sendable {
    /// Which managed credentials these are (several managers can share a storage).
    public let name: String
    /// The security options the credentials are stored with (accessibility, access group, access
    /// control).
    public let security: [Credential.Security]
    /// Supplies the proofs that reading access-controlled credentials needs.
    public let authenticationContext: (any AuthenticationContext)?

    /// The tag holding the manager's name.
    static let nameTag = "credentialsManager"
    /// The tag recording the protection the credentials were stored with, so a replacement can
    /// refuse to keep a protection other than the one asked for.
    static let securityTag = "credentialsManager.security"

    /// A manager.
    ///
    /// - Parameters:
    ///   - name: Which managed credentials; `"default"` unless given.
    ///   - security: The security options to store credentials with; ``Credential/Security/standard``
    ///     unless given.
    ///   - authenticationContext: Supplies proofs for access-controlled credentials.
    public init(
        name: String = "default", security: [Credential.Security] = Credential.Security.standard,
        authenticationContext: (any AuthenticationContext)? = nil
    ) {
        self.name = name
        self.security = security
        self.authenticationContext = authenticationContext
    }

    /// Stores `credentials`, replacing the ones this manager kept before, in one write.
    ///
    /// A replacement takes the place of the old record (the stored id stays, so the credentials stay
    /// the default if they were): a reader in any process sees either the old credentials or the
    /// new ones, never both and never none. Storing credentials means this is who is signed in now,
    /// so when no credential is the default (none was stored yet, or the app set
    /// ``Credential/default`` to `nil`), this manager's credentials become the default, whether
    /// they are stored for the first time or replace the manager's earlier ones, as with
    /// ``Credential/store(_:tags:security:)``; another credential that is the default stays it.
    ///
    /// - Parameter credentials: The token set.
    /// - Throws: ``CredentialsManagerError/differentClient`` when the stored credentials are another
    ///   client's, ``CredentialsManagerError/securityMismatch`` when they were stored with other
    ///   security options, ``CredentialsManagerError/locked``,
    ///   ``CredentialsManagerError/interactionRequired`` when the stored credentials need a proof
    ///   the ``authenticationContext`` does not give, ``CredentialsManagerError/storage(_:)``.
    public func store(credentials: Token) throws {
        try translating(server: CredentialsManagerError.renewFailed) {
            let (policy, _) = try Credential.Security.resolve(security)
            let tags = [Self.nameTag: name, Self.securityTag: Self.fingerprint(policy)]
            guard let previous = try managed() else {
                try Credential.store(credentials, tags: tags, security: security)
                return
            }
            let old = try previous.currentToken()
            guard old.context.issuer == credentials.context.issuer,
                old.context.clientID == credentials.context.clientID,
                old.context.clientSecret == credentials.context.clientSecret
            else { throw CredentialsManagerError.differentClient }
            guard (previous.tags[Self.securityTag] ?? Self.fingerprint(.default)) == tags[Self.securityTag] else {
                throw CredentialsManagerError.securityMismatch
            }
            try previous.replaceToken(with: credentials.withID(previous.id), tags: tags)
        }
    }

    /// Whether the stored credentials can be renewed (they have a refresh token).
    ///
    /// - Returns: `false` too when they cannot be read (a locked vault).
    public func canRenew() -> Bool {
        (try? managed()?.currentToken())?.refreshToken != nil
    }

    /// Whether credentials are stored whose access token is valid for at least `minTTL` seconds.
    ///
    /// - Parameter minTTL: The minimum remaining lifetime, in seconds.
    /// - Returns: `true` when they are; `false` too when they cannot be read (a locked vault).
    public func hasValid(minTTL: Int = 0) -> Bool {
        guard let token = try? managed()?.currentToken() else { return false }
        return token.expiresAt.timeIntervalSinceNow > TimeInterval(minTTL)
    }

    /// The user the stored credentials are about: the claims of their ID token, marked with
    /// whether that ID token is known to be verified (``ManagedUser/isVerified``).
    ///
    /// Auth0 decodes whatever ID token was stored and presents it as the user; here the claims come
    /// with the mark, so unverified claims are never taken for a checked sign-in by mistake: an ID
    /// token decoded from a raw response gives `isVerified == false`, one a grant or refresh
    /// verified gives `true`, read back from a vault (which seals the mark with the token) as from
    /// memory. `nil` when nothing is stored, the credentials have no ID token, or they cannot be read
    /// (a locked vault).
    public var user: ManagedUser? {
        guard let idToken = (try? managed()?.currentToken())?.idToken else { return nil }
        return ManagedUser(idToken: idToken)
    }

    /// The credentials, renewed first (one request however many callers, in any process) when
    /// they expire within `minTTL` seconds.
    ///
    /// - Parameter minTTL: The minimum remaining lifetime, in seconds.
    /// - Returns: Valid credentials.
    /// - Throws: ``CredentialsManagerError/noCredentials``, ``CredentialsManagerError/locked``,
    ///   ``CredentialsManagerError/interactionRequired`` (nothing is sent),
    ///   ``CredentialsManagerError/expired`` when they need renewing and have no refresh token,
    ///   ``CredentialsManagerError/renewFailed(_:)``, ``CredentialsManagerError/largeMinTTL(_:)``
    ///   when even fresh tokens live shorter than `minTTL`.
    public func credentials(minTTL: Int = 0) async throws -> Token {
        try await translating(server: CredentialsManagerError.renewFailed) {
            let credential = try required()
            let current = try credential.currentToken()
            if current.expiresAt.timeIntervalSinceNow > TimeInterval(minTTL) { return current }
            guard current.refreshToken != nil else { throw CredentialsManagerError.expired }
            try await credential.refreshIfNeeded(graceInterval: TimeInterval(minTTL))
            let token = try credential.currentToken()
            guard token.expiresAt.timeIntervalSinceNow > TimeInterval(minTTL) else {
                throw CredentialsManagerError.largeMinTTL(minTTL)
            }
            return token
        }
    }

    /// Renews the credentials now, whatever their lifetime, sending `parameters` as extra fields
    /// of the refresh request, and stores the result.
    ///
    /// A renewal already in flight for the same credentials is joined: its request, sent with its
    /// own parameters, is the one made.
    /// - Parameter parameters: Extra form fields (none may be one the client sets itself).
    /// - Returns: The renewed credentials.
    /// - Throws: ``CredentialsManagerError/noCredentials``, ``CredentialsManagerError/noRefreshToken``,
    ///   ``CredentialsManagerError/locked``, ``CredentialsManagerError/interactionRequired``,
    ///   ``CredentialsManagerError/renewFailed(_:)`` (with
    ///   ``OAuth2Error/reservedParameter(_:)`` before anything is sent).
    @discardableResult
    public func renew(parameters: [String: String] = [:]) async throws -> Token {
        try await translating(server: CredentialsManagerError.renewFailed) {
            let credential = try required()
            guard try credential.currentToken().refreshToken != nil else {
                throw CredentialsManagerError.noRefreshToken
            }
            return try await credential.refresh(force: true, graceInterval: 0, parameters: parameters)
        }
    }

    /// An access token for another API, from the stored refresh token (Auth0's multi-resource
    /// refresh token): a refresh request with `audience` and `scope`. The stored credentials keep
    /// their own access token; a refresh token the server rotates is stored before this returns.
    ///
    /// The answer's access token must be shown to be for `audience`: a JWT whose `aud` names it, or
    /// a server whose introspection says so (Auth0 issues JWTs; the local test server, started with
    /// API audiences, opaque tokens its introspection reports). A server that ignores the
    /// `audience` parameter (most do) gives ``CredentialsManagerError/audienceNotSupported(_:)``
    /// and the token is not handed out. API credentials are not cached: each call asks the server.
    /// - Parameters:
    ///   - audience: The API's identifier.
    ///   - scope: The scopes to ask for, if any.
    /// - Returns: The API's access token.
    /// - Throws: ``CredentialsManagerError/audienceNotSupported(_:)``,
    ///   ``CredentialsManagerError/apiExchangeFailed(_:)``, ``CredentialsManagerError/noCredentials``,
    ///   ``CredentialsManagerError/noRefreshToken``, ``CredentialsManagerError/locked``,
    ///   ``CredentialsManagerError/interactionRequired``.
    public func apiCredentials(forAudience audience: String, scope: [String]? = nil) async throws -> APICredentials {
        try await translating(server: CredentialsManagerError.apiExchangeFailed) {
            let credential = try required()
            guard try credential.currentToken().refreshToken != nil else {
                throw CredentialsManagerError.noRefreshToken
            }
            var parameters = ["audience": audience]
            if let scope { parameters["scope"] = scope.joined(separator: " ") }
            let answer = try await credential.exchangeRefreshToken(parameters: parameters)
            guard try await Self.isFor(audience, answer, client: credential.oauth2) else {
                throw CredentialsManagerError.audienceNotSupported(audience)
            }
            return APICredentials(
                audience: audience, accessToken: answer.accessToken, tokenType: answer.tokenType,
                expiresAt: answer.expiresAt, scope: answer.scope)
        }
    }

    /// Removes the stored credentials, locally (no network).
    ///
    /// - Returns: Whether anything was removed.
    @discardableResult
    public func clear() -> Bool {
        guard let credential = (try? managed()) ?? nil else { return false }
        return (try? credential.remove()) != nil
    }

    /// Revokes the credentials at the server (RFC 7009), then removes them. With nothing stored
    /// it does nothing, as Auth0's does.
    ///
    /// - Throws: ``CredentialsManagerError/revokeFailed(_:)`` (nothing is removed when the server
    ///   refuses or cannot be reached), ``CredentialsManagerError/locked`` or
    ///   ``CredentialsManagerError/interactionRequired`` (nothing is sent).
    public func revoke() async throws {
        try await translating(server: CredentialsManagerError.revokeFailed) {
            try await managed()?.revoke(type: .all)
        }
    }

    /// The managed credential, or `nil`.
    private func managed() throws -> Credential? {
        try Credential.find(tags: [Self.nameTag: name], authenticationContext: authenticationContext).first
    }

    /// The managed credential, or ``CredentialsManagerError/noCredentials``.
    private func required() throws -> Credential {
        guard let credential = try managed() else { throw CredentialsManagerError.noCredentials }
        return credential
    }

    /// A stable text of what a policy protects with; no secret is in a policy.
    private static func fingerprint(_ policy: VaultPolicy) -> String {
        "\(policy.accessibility.rawValue)|\(policy.accessGroup ?? "")|\(policy.accessControl.rawValue)"
    }

    /// Whether the access token of `answer` is shown to be for `audience`.
    private static func isFor(_ audience: String, _ answer: Token, client: OAuth2Client) async throws -> Bool {
        if let jwt = try? JWT(answer.accessToken), let audiences = jwt.audience { return audiences.contains(audience) }
        guard let info = try? await client.introspect(answer, type: .accessToken), info.active else { return false }
        return info.audience?.contains(audience) ?? false
    }

    private func translating<Result>(
        server: (OAuth2Error) -> CredentialsManagerError, _ body: () throws -> Result
    ) throws -> Result {
        do {
            return try body()
        } catch {
            throw CredentialsManagerError.translated(error, server: server)
        }
    }

    private func translating<Result>(
        server: (OAuth2Error) -> CredentialsManagerError, _ body: () async throws -> Result
    ) async throws -> Result {
        do {
            return try await body()
        } catch {
            throw CredentialsManagerError.translated(error, server: server)
        }
    }
}
