import Foundation
import OAuth2
import VaultCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Credential {
    /// How long a refresh lease holds if its process dies: longer than any request may take.
    static let refreshLeaseDuration: TimeInterval = 60

    /// Refreshes the token now.
    ///
    /// Single flight: concurrent calls in this process make one request, and processes sharing
    /// the vault take a lease in it and re-read the token first, so they make one request too and
    /// never replay a rotated refresh token. The new token is persisted before any caller resumes.
    /// A failure leaves storage untouched and posts `.credentialRefreshFailed`; with the vault
    /// locked nothing is sent.
    /// - Throws: ``CredentialError/oauth2(_:)`` (`invalid_grant` is terminal: sign in again),
    ///   ``CredentialError/removed(_:)``, ``CredentialError/storage(_:)`` (``VaultError/locked``
    ///   once locking wiped the token, ``VaultError/interactionRequired`` without a proof).
    public func refresh() async throws {
        _ = try await refresh(force: true, graceInterval: 0)
    }

    /// Refreshes when the access token expires within `graceInterval` (`expiresAt - now <= grace`).
    ///
    /// - Parameter graceInterval: How early to refresh; ``refreshGraceInterval`` by default.
    /// - Throws: As ``refresh()``.
    public func refreshIfNeeded(graceInterval: TimeInterval = Credential.refreshGraceInterval) async throws {
        guard Self.needsRefresh(try tokenForRefresh(), graceInterval: graceInterval) else { return }
        _ = try await refresh(force: false, graceInterval: graceInterval)
    }

    /// Revokes tokens at the server (RFC 7009), then updates storage:
    ///
    /// | type | revoked | storage afterwards |
    /// |---|---|---|
    /// | `.all` | refresh token (if any), access token, device secret (if any) | removed |
    /// | `.refreshToken` | refresh token | removed |
    /// | `.accessToken` | access token | removed if there is no refresh token; else kept, marked expired so the next use refreshes |
    /// | `.deviceSecret` | device secret | kept, without the device secret |
    ///
    /// A failure (network, server) changes nothing in storage.
    /// - Parameter type: What to revoke; `.all` by default.
    /// - Throws: ``CredentialError/oauth2(_:)``, ``CredentialError/removed(_:)``,
    ///   ``CredentialError/storage(_:)`` (``VaultError/locked``: nothing is sent).
    public func revoke(type: Token.RevokeType = .all) async throws {
        let token = try currentToken()
        try await CredentialError.translating {
            switch type {
            case .all:
                if token.refreshToken != nil { try await oauth2.revoke(token, type: .refreshToken) }
                try await oauth2.revoke(token, type: .accessToken)
                if token.deviceSecret != nil { try await oauth2.revoke(token, type: .deviceSecret) }
                try remove()
            case .refreshToken:
                try await oauth2.revoke(token, type: .refreshToken)
                try remove()
            case .accessToken:
                try await oauth2.revoke(token, type: .accessToken)
                if token.refreshToken == nil {
                    try remove()
                } else {
                    try persist(token.withAccessToken(expiresIn: 0))
                }
            case .deviceSecret:
                try await oauth2.revoke(token, type: .deviceSecret)
                try persist(token.withoutDeviceSecret())
            }
        }
    }

    /// Asks the server about one of the credential's tokens (RFC 7662).
    ///
    /// - Parameter type: Which token.
    /// - Returns: The server's answer.
    /// - Throws: ``CredentialError/oauth2(_:)``, ``CredentialError/removed(_:)``,
    ///   ``CredentialError/storage(_:)`` (``VaultError/locked``: nothing is sent).
    public func introspect(_ type: Token.Kind) async throws -> TokenInfo {
        let token = try currentToken()
        return try await CredentialError.translating { try await oauth2.introspect(token, type: type) }
    }

    /// The OIDC userinfo for the current access token.
    ///
    /// - Returns: The user's claims.
    /// - Throws: ``CredentialError/oauth2(_:)`` (401 for an expired or revoked access token),
    ///   ``CredentialError/storage(_:)`` (``VaultError/locked``: nothing is sent).
    public func userInfo() async throws -> UserInfo {
        let token = try currentToken()
        return try await CredentialError.translating { try await oauth2.userInfo(token) }
    }

    /// Refreshes if needed, then sets `Authorization: <token type> <access token>`. When the token
    /// cannot be read (the vault is locked, or its class's keys were wiped when the unlock session
    /// ended) it throws and leaves the request as it was.
    ///
    /// - Parameter request: The request to authorize.
    /// - Throws: As ``refreshIfNeeded(graceInterval:)``.
    public func authorize(request: inout URLRequest) async throws {
        try await refreshIfNeeded()
        let token = try currentToken()
        request.setValue("\(token.tokenType) \(token.accessToken)", forHTTPHeaderField: "Authorization")
    }

    /// As ``authorize(request:)``, but never throws: a failure is posted as
    /// `.credentialRefreshFailed` (with `userInfo["error"]`). After a failed refresh the current
    /// token is still set, so the server's answer tells the caller what happened; a token that
    /// cannot be read (locked vault, missing proof, removed credential) sets no header at all.
    ///
    /// - Parameter request: The request to authorize.
    public func authorize(_ request: inout URLRequest) async {
        var refreshFailed = false
        do {
            try await refreshIfNeeded()
        } catch {
            refreshFailed = true  // refreshIfNeeded has posted it
        }
        do {
            let token = try currentToken()
            request.setValue("\(token.tokenType) \(token.accessToken)", forHTTPHeaderField: "Authorization")
        } catch {
            if !refreshFailed { postRefreshFailed(error) }
        }
    }

    // MARK: Refresh internals

    static func needsRefresh(_ token: Token, graceInterval: TimeInterval) -> Bool {
        token.expiresAt.timeIntervalSinceNow <= graceInterval
    }

    /// The token a refresh starts from; a failure to read it is posted like a failed refresh.
    private func tokenForRefresh() throws -> Token {
        do {
            return try currentToken()
        } catch {
            postRefreshFailed(error)
            throw error
        }
    }

    /// Joins the refresh in flight, or starts one.
    private func refresh(force: Bool, graceInterval: TimeInterval) async throws -> Token {
        let startedFrom = try tokenForRefresh()
        let flight = refreshFlight.withLock { inFlight -> Task<Token, any Error> in
            if let inFlight { return inFlight }
            let task = Task {
                defer { refreshFlight.withLock { $0 = nil } }
                return try await performRefresh(startedFrom: startedFrom, force: force, graceInterval: graceInterval)
            }
            inFlight = task
            return task
        }
        return try await flight.value
    }

    /// One refresh under the cross-process lease: re-read, refresh only if still needed, persist,
    /// then let the waiters go.
    private func performRefresh(startedFrom: Token, force: Bool, graceInterval: TimeInterval) async throws -> Token {
        do {
            let owner = UUID().uuidString
            try await acquireRefreshLease(owner: owner)
            defer { try? storage.releaseRefreshLease(id: id, owner: owner) }
            let generation = vault?.keyGeneration  // before the read: a wipe from now on counts
            guard
                let stored = try storage.token(id: id, prompt: nil, authenticationContext: authenticationContext),
                let metadata = try storage.metadata(id: id)
            else { throw CredentialError.removed(id) }
            let changedMeanwhile = stored != startedFrom
            if changedMeanwhile && (force || !Self.needsRefresh(stored, graceInterval: graceInterval)) {
                update(token: stored, metadata: metadata, generation: generation)  // another process refreshed
                return stored
            }
            if !force && !Self.needsRefresh(stored, graceInterval: graceInterval) { return stored }
            let fresh = try await CredentialError.translating { try await oauth2.refresh(stored) }
            let updated = Token.Metadata(id: id, tags: metadata.tags, claims: fresh.idToken?.claims ?? metadata.claims)
            try storage.replace(token: fresh, metadata: updated)
            update(token: fresh, metadata: updated, generation: generation)
            return fresh
        } catch {
            postRefreshFailed(error)
            throw error
        }
    }

    private func acquireRefreshLease(owner: String) async throws {
        let deadline = Date().addingTimeInterval(Self.refreshLeaseDuration * 2)
        while try !storage.acquireRefreshLease(id: id, owner: owner, duration: Self.refreshLeaseDuration) {
            guard Date() < deadline else {
                throw CredentialError.storage(.storage("another process held the refresh lease too long"))
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Writes `token` (same id) with the current metadata, and keeps it in memory.
    private func persist(_ token: Token) throws {
        let metadata = try checked { $0.metadata }
        let generation = vault?.keyGeneration
        try storage.replace(token: token, metadata: metadata)
        update(token: token, metadata: metadata, generation: generation)
    }

    func postRefreshFailed(_ error: any Error) {
        NotificationCenter.default.post(name: .credentialRefreshFailed, object: self, userInfo: ["error": error])
    }
}

extension Token {
    /// The same token with its access token marked expired.
    func withAccessToken(expiresIn: TimeInterval) -> Token {
        Token(
            id: id, tokenType: tokenType, accessToken: accessToken, refreshToken: refreshToken, idToken: idToken,
            deviceSecret: deviceSecret, scope: scope, issuedAt: issuedAt, expiresIn: expiresIn, context: context)
    }

    /// The same token without its device secret.
    func withoutDeviceSecret() -> Token {
        Token(
            id: id, tokenType: tokenType, accessToken: accessToken, refreshToken: refreshToken, idToken: idToken,
            deviceSecret: nil, scope: scope, issuedAt: issuedAt, expiresIn: expiresIn, context: context)
    }
}
