import Foundation
import OAuth2
import VaultCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Credential {
    /// How long a refresh lease holds if its process dies: longer than any request may take
    /// (60 s). Tests shorten it to make a refresh outlive its lease.
    package static var refreshLeaseDuration: TimeInterval {
        get { CredentialCoordinator.shared.refreshLeaseDuration }
        set { CredentialCoordinator.shared.refreshLeaseDuration = newValue }
    }

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
        guard Self.needsRefresh(try expiryForRefresh(), graceInterval: graceInterval) else { return }
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
    /// It works on the stored token, not on this instance's copy: under the refresh lease (so no
    /// process refreshes meanwhile) it reads the token again, revokes the values stored now, and
    /// writes back only that change with a compare-and-swap on the version it read; if another
    /// writer got in first, it reads again, revokes what is new, and retries. A token another
    /// process refreshed is therefore never replaced by this instance's older copy.
    /// A failure (network, server) changes nothing in storage.
    /// - Parameter type: What to revoke; `.all` by default.
    /// - Throws: ``CredentialError/oauth2(_:)``, ``CredentialError/removed(_:)``,
    ///   ``CredentialError/conflict(_:)``, ``CredentialError/storage(_:)`` (``VaultError/locked``:
    ///   nothing is sent).
    public func revoke(type: Token.RevokeType = .all) async throws {
        _ = try currentToken()
        try await CredentialError.translating {
            let owner = UUID().uuidString
            _ = try await acquireRefreshLease(owner: owner)
            defer { try? storage.releaseRefreshLease(id: id, owner: owner) }
            // Values already revoked at the server, so a retry after a conflict sends only new ones.
            var revoked: Set<[String]> = []
            for _ in 0..<Self.maximumWriteAttempts {
                let generation = vault?.keyGeneration  // before the read: a wipe from now on counts
                guard
                    let stored = try storage.storedToken(
                        id: id, prompt: nil, authenticationContext: authenticationContext)
                else { throw CredentialError.removed(id) }
                for (kind, required) in Self.revokedKinds(type) {
                    let value = stored.token.value(of: kind)
                    guard value != nil || required else { continue }
                    if let value, revoked.contains([kind.rawValue, value]) { continue }
                    try await oauth2.revoke(stored.token, type: kind)
                    if let value { revoked.insert([kind.rawValue, value]) }
                }
                do {
                    try apply(type, to: stored, generation: generation)
                    return
                } catch CredentialError.conflict {
                    continue
                }
            }
            throw CredentialError.conflict(id)
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

    /// The OIDC userinfo for the current access token, kept as ``userInfo`` too.
    ///
    /// - Returns: The user's claims.
    /// - Throws: ``CredentialError/oauth2(_:)`` (401 for an expired or revoked access token),
    ///   ``CredentialError/storage(_:)`` (``VaultError/locked``: nothing is sent).
    public func userInfo() async throws -> UserInfo {
        let token = try currentToken()
        let info = try await CredentialError.translating { try await oauth2.userInfo(token) }
        state.withLock { $0.userInfo = info }
        return info
    }

    /// Refreshes if needed, then sets `Authorization: <token type> <access token>`; for a
    /// DPoP-bound token also a `DPoP` proof of its key for this request's method and URL (see
    /// ``OAuth2Client/authorize(_:with:)``), so authorize again before each send. When the token
    /// cannot be read (the vault is locked, or its class's keys were wiped when the unlock session
    /// ended) it throws and leaves the request as it was.
    ///
    /// - Parameter request: The request to authorize.
    /// - Throws: As ``refreshIfNeeded(graceInterval:)``, and ``CredentialError/oauth2(_:)`` with
    ///   ``OAuth2Error/dpopKeyMissing`` for a DPoP-bound token stored without its key (the request
    ///   is left as it was).
    public func authorize(request: inout URLRequest) async throws {
        try await refreshIfNeeded()
        let token = try currentToken()
        try CredentialError.translating { try oauth2.authorize(&request, with: token) }
    }

    /// As ``authorize(request:)``, but never throws: a failure is posted as
    /// `.credentialRefreshFailed` (with `userInfo["error"]`). After a failed refresh the current
    /// token is still set, so the server's answer tells the caller what happened; a token that
    /// cannot be read (locked vault, missing proof, removed credential), or a DPoP-bound one
    /// without its key, sets no header at all.
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
            try CredentialError.translating { try oauth2.authorize(&request, with: token) }
        } catch {
            if !refreshFailed { postRefreshFailed(error) }
        }
    }

    /// Refreshes if needed, then sends `request` authorized by the token through
    /// ``Credential/httpClient``, and gives the answer whatever its status. A DPoP nonce challenge
    /// from the resource server is answered once, with a new proof carrying its nonce (see
    /// ``OAuth2Client/send(_:authorizedWith:)``).
    ///
    /// - Parameter request: The request.
    /// - Returns: The body and response.
    /// - Throws: As ``authorize(request:)``, and ``CredentialError/oauth2(_:)`` with
    ///   ``OAuth2Error/dpopNonceRefused(statusCode:)`` when the retry is challenged again, or a
    ///   network error.
    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        try await refreshIfNeeded()
        let token = try currentToken()
        return try await CredentialError.translating { try await oauth2.send(request, authorizedWith: token) }
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

    /// The token without its secrets (its expiry is what a refresh decision needs), after checking
    /// that the token itself can still be read, so a locked vault fails here and nothing is sent; a
    /// failure is posted like a failed refresh. Cheap: the kept copy is not opened.
    private func expiryForRefresh() throws -> Token {
        do {
            try ensureReadable(prompt: nil, context: nil)
            return redactedToken
        } catch {
            postRefreshFailed(error)
            throw error
        }
    }

    /// Joins the refresh in flight, or starts one. Only the caller that starts it reads the whole
    /// token; the others (a thousand concurrent callers, say) only check that it is still readable.
    func refresh(force: Bool, graceInterval: TimeInterval, parameters: [String: String] = [:]) async throws -> Token {
        _ = try expiryForRefresh()
        let flight = state.withLock { state -> Task<Token, any Error> in
            if let inFlight = state.refreshFlight { return inFlight }
            let task = Task {
                defer { self.state.withLock { $0.refreshFlight = nil } }
                let startedFrom = try tokenForRefresh()
                return try await performRefresh(
                    startedFrom: startedFrom, force: force, graceInterval: graceInterval, parameters: parameters)
            }
            state.refreshFlight = task
            return task
        }
        return try await flight.value
    }

    /// One refresh under the cross-process lease: re-read, refresh only if still needed, persist,
    /// then let the waiters go.
    private func performRefresh(
        startedFrom: Token, force: Bool, graceInterval: TimeInterval, parameters: [String: String]
    ) async throws -> Token {
        do {
            let owner = UUID().uuidString
            // Another process refreshed (while this one waited for the lease, or before it).
            let refreshedElsewhere = { (stored: StoredToken) in
                stored.token != startedFrom && (force || !Self.needsRefresh(stored.token, graceInterval: graceInterval))
            }
            if let (stored, generation) = try await acquireRefreshLease(owner: owner, unlessStored: refreshedElsewhere)
            {
                update(token: stored.token, metadata: stored.metadata, generation: generation)
                return stored.token
            }
            defer { try? storage.releaseRefreshLease(id: id, owner: owner) }
            let generation = vault?.keyGeneration  // before the read: a wipe from now on counts
            guard
                let stored = try storage.storedToken(id: id, prompt: nil, authenticationContext: authenticationContext)
            else { throw CredentialError.removed(id) }
            if refreshedElsewhere(stored) {
                update(token: stored.token, metadata: stored.metadata, generation: generation)
                return stored.token
            }
            if !force && !Self.needsRefresh(stored.token, graceInterval: graceInterval) { return stored.token }
            let fresh = try await CredentialError.translating {
                try await oauth2.refresh(stored.token, parameters: parameters)
            }
            let written = try await persistRefresh(fresh, refreshedFrom: stored)
            update(token: written.token, metadata: written.metadata, generation: generation)
            return written.token
        } catch {
            postRefreshFailed(error)
            throw error
        }
    }

    /// Writes a refreshed token with a compare-and-swap on the version it was refreshed from.
    ///
    /// The lease alone cannot promise that version is still the stored one: a refresh that outlived
    /// its lease may find that another process refreshed, or that tags changed, meanwhile. Then it
    /// reads the record again and merges instead of overwriting: the values this refresh changed
    /// win (they are the newest), every other value, the tags, and the claims of an ID token this
    /// refresh did not replace come from the stored record. The version, not the lease, is what the
    /// write checks: whoever took the lease over has either written (the version moved) or not yet
    /// (its own write will conflict and merge in turn), so a lease check would refuse nothing more.
    ///
    /// A storage failure (a database server restarting, a lost connection) is retried for as long
    /// as the refresh lease lasts: the server has rotated the refresh token, this process holds the
    /// only copy of the new one, and giving up would leave the vault with a dead token that the
    /// next refresh would replay. A write whose commit was lost with its connection is found by the
    /// retry as a changed version and merged like any other.
    func persistRefresh(_ fresh: Token, refreshedFrom base: StoredToken) async throws -> StoredToken {
        var expected = base.version
        var token = fresh
        // Claims come from the ID token as the token record keeps it (its payload as issued, with its
        // verified mark), else from the stored metadata.
        var metadata =
            fresh.idToken == nil ? base.metadata : Token.Metadata(token: fresh, tags: base.metadata.tags)
        let clock = ContinuousClock()
        let storageDeadline = clock.now + .seconds(Self.refreshLeaseDuration)
        var conflicts = 0
        while true {
            do {
                do {
                    let version = try storage.replace(token: token, metadata: metadata, expectedVersion: expected)
                    return StoredToken(token: token, metadata: metadata, version: version)
                } catch CredentialError.conflict {
                    conflicts += 1
                    guard conflicts < Self.maximumWriteAttempts else { throw CredentialError.conflict(id) }
                    guard
                        let latest = try storage.storedToken(
                            id: id, prompt: nil, authenticationContext: authenticationContext)
                    else { throw CredentialError.removed(id) }
                    expected = latest.version
                    token = fresh.rebased(from: base.token, onto: latest.token)
                    metadata =
                        token.idToken == latest.token.idToken
                        ? latest.metadata : Token.Metadata(token: token, tags: latest.metadata.tags)
                }
            } catch CredentialError.storage(.storage) where clock.now < storageDeadline {
                try? await Task.sleep(for: Self.storageRetryInterval)
            }
        }
    }

    /// How long a refresh waits before writing its new token again after a storage failure.
    private static let storageRetryInterval = Duration.milliseconds(100)

    /// The longest one wait for the refresh lease lasts before the lease is tried again, so that
    /// a lease whose holder died is taken once it expires even when no commit wakes the wait.
    private static let leaseRecheckInterval = Duration.milliseconds(500)

    /// Takes the refresh lease, waiting while another caller holds it.
    ///
    /// Each wait ends when another process commits a write, on a storage that hears of commits (a
    /// vault in PostgreSQL), or after a short sleep otherwise; then the lease is tried again. While
    /// it waits, a stored token that `isDone` accepts ends the wait without the lease: its holder
    /// refreshed, and readers need no lease, so every waiter gets the new token as soon as it commits
    /// instead of taking the lease in turn.
    ///
    /// - Parameters:
    ///   - owner: A unique id of this attempt.
    ///   - isDone: Whether a stored token makes taking the lease unnecessary; `nil` always takes it.
    /// - Returns: `nil` once `owner` holds the lease; otherwise the stored token `isDone` accepted,
    ///   with the key generation taken before it was read.
    /// - Throws: ``CredentialError/removed(_:)``, or ``CredentialError/storage(_:)`` when another
    ///   process held the lease for twice its duration.
    func acquireRefreshLease(
        owner: String, unlessStored isDone: ((StoredToken) -> Bool)? = nil
    ) async throws -> (StoredToken, VaultKeyGeneration?)? {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(Self.refreshLeaseDuration * 2)
        do {
            var waited = false
            while true {
                let mark = storage.changeMark()  // before the looks: a commit after them wakes the wait
                // After a wait, the token first: a reader takes no lock, where trying the lease is a
                // write every waiter would queue for behind the others.
                if waited, let done = try storedToken(ifDone: isDone) { return done }
                if try storage.acquireRefreshLease(id: id, owner: owner, duration: Self.refreshLeaseDuration) {
                    return nil
                }
                if !waited, let done = try storedToken(ifDone: isDone) { return done }
                let remaining = deadline - clock.now
                guard remaining > .zero else {
                    throw CredentialError.storage(.storage("another process held the refresh lease too long"))
                }
                await storage.waitForChange(since: mark, timeout: min(remaining, Self.leaseRecheckInterval))
                waited = true
            }
        } catch CredentialError.notFound {
            throw CredentialError.removed(id)
        }
    }

    /// The stored token with the key generation taken before it was read, if `isDone` accepts it.
    private func storedToken(ifDone isDone: ((StoredToken) -> Bool)?) throws -> (StoredToken, VaultKeyGeneration?)? {
        guard let isDone else { return nil }
        let generation = vault?.keyGeneration  // before the read: a wipe from now on counts
        guard let stored = try storage.storedToken(id: id, prompt: nil, authenticationContext: authenticationContext),
            isDone(stored)
        else { return nil }
        return (stored, generation)
    }

    /// The kinds `type` revokes at the server, and whether each must be present (a named kind that
    /// is missing fails with ``OAuth2Error/missingToken(_:)``).
    private static func revokedKinds(_ type: Token.RevokeType) -> [(Token.Kind, required: Bool)] {
        switch type {
        case .all: [(.refreshToken, false), (.accessToken, true), (.deviceSecret, false)]
        case .refreshToken: [(.refreshToken, true)]
        case .accessToken: [(.accessToken, true)]
        case .deviceSecret: [(.deviceSecret, true)]
        }
    }

    /// Writes what revoking `type` leaves of `stored`, with a compare-and-swap on its version, and
    /// keeps the result if the vault's key `generation` (taken before `stored` was read) still holds.
    private func apply(
        _ type: Token.RevokeType, to stored: StoredToken, generation: VaultKeyGeneration?
    ) throws {
        let kept: Token
        switch type {
        case .all, .refreshToken:
            didRemove(wasDefault: try storage.remove(id: id, expectedVersion: stored.version))
            return
        case .accessToken:
            guard stored.token.refreshToken != nil else {
                didRemove(wasDefault: try storage.remove(id: id, expectedVersion: stored.version))
                return
            }
            kept = stored.token.withAccessToken(expiresIn: 0)
        case .deviceSecret:
            kept = stored.token.withoutDeviceSecret()
        }
        _ = try storage.replace(token: kept, metadata: stored.metadata, expectedVersion: stored.version)
        update(token: kept, metadata: stored.metadata, generation: generation)
    }

    func postRefreshFailed(_ error: any Error) {
        NotificationCenter.default.post(name: .credentialRefreshFailed, object: self, userInfo: ["error": error])
    }
}

extension Token {
    /// This token, made from `base`, applied onto `current`, which another writer stored meanwhile:
    /// what this token changed from `base` wins, everything else comes from `current`, so no value
    /// the other writer replaced comes back stale. The access token, its type and its lifetime move
    /// together; the id and context are `current`'s.
    ///
    /// - Parameters:
    ///   - base: The token this one was made from (what a refresh started from).
    ///   - current: The token stored now.
    /// - Returns: The merged token.
    package func rebased(from base: Token, onto current: Token) -> Token {
        func pick<Value: Equatable>(_ mine: Value, _ old: Value, _ theirs: Value) -> Value {
            mine == old ? theirs : mine
        }
        let access =
            accessToken != base.accessToken || tokenType != base.tokenType || issuedAt != base.issuedAt
                || expiresIn != base.expiresIn ? self : current
        return Token(
            id: current.id, tokenType: access.tokenType, accessToken: access.accessToken,
            refreshToken: pick(refreshToken, base.refreshToken, current.refreshToken),
            idToken: pick(idToken, base.idToken, current.idToken),
            deviceSecret: pick(deviceSecret, base.deviceSecret, current.deviceSecret),
            scope: pick(scope, base.scope, current.scope), issuedAt: access.issuedAt, expiresIn: access.expiresIn,
            context: current.context, dpopKey: access.dpopKey ?? current.dpopKey)
    }

    /// The same token with its access token marked expired.
    func withAccessToken(expiresIn: TimeInterval) -> Token {
        Token(
            id: id, tokenType: tokenType, accessToken: accessToken, refreshToken: refreshToken, idToken: idToken,
            deviceSecret: deviceSecret, scope: scope, issuedAt: issuedAt, expiresIn: expiresIn, context: context,
            dpopKey: dpopKey)
    }

    /// The same token without its device secret.
    func withoutDeviceSecret() -> Token {
        Token(
            id: id, tokenType: tokenType, accessToken: accessToken, refreshToken: refreshToken, idToken: idToken,
            deviceSecret: nil, scope: scope, issuedAt: issuedAt, expiresIn: expiresIn, context: context,
            dpopKey: dpopKey)
    }
}
