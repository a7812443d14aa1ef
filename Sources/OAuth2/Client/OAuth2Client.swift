import Foundation
import Locking
import VaultCrypto

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An OAuth 2.0 / OpenID Connect client for one issuer and one client id.
///
/// Endpoints come from discovery (OIDC merged with RFC 8414, fetched once and cached), and are
/// used only when each document names exactly the configured issuer. Every URL must be `https`
/// unless it is a loopback address (see ``TransportPolicy``), checked before a request is handed to
/// the transport. Every request goes through one ``HTTPClient``: a ``URLSessionHTTPClient`` by
/// default, which follows a redirect only within the origin it came from, or one of your own (a
/// proxy, mTLS, a test double) through ``init(issuer:clientID:clientSecret:scopes:httpClient:)``.
/// Public clients send `client_id` in the body; confidential ones authenticate with HTTP Basic (or
/// in the body, see ``ClientAuthentication``). The ID token of every grant and refresh is validated
/// (``IDTokenValidator``, with the issuer's keys from its `jwks_uri`) before the token is returned.
/// Every failure is an ``OAuth2Error``.
public final class OAuth2Client: Sendable {
    /// The issuer.
    public let issuer: URL
    /// The client id.
    public let clientID: String
    /// The client secret of a confidential client.
    let clientSecret: String?
    /// The scopes requested by default.
    public let scopes: [String]
    /// How a confidential client authenticates.
    public let clientAuthentication: ClientAuthentication
    /// How long one request may take before it fails with ``OAuth2Error/network(_:)``.
    public let requestTimeout: TimeInterval
    /// Which URLs requests may go to: `https`, or `http` to a loopback address, by default.
    public let transportPolicy: TransportPolicy
    /// The transport every request goes through.
    public let httpClient: any HTTPClient
    /// How the ID tokens of grants and refreshes are validated (``IDTokenValidator``).
    public let idTokenValidation: IDTokenValidator.Options
    /// Whether grants ask for DPoP-bound tokens, and how proofs are made; `nil`: grants ask for
    /// Bearer tokens. A token bound to a key (``Token/dpopKey``) is refreshed and used with proofs
    /// either way, with these options or the defaults.
    public let dpop: DPoPOptions?
    private let discovered = Locked<OpenIDConfiguration?>(nil)

    /// A client whose requests go through `httpClient`.
    ///
    /// The ``transportPolicy`` is checked before each request reaches `httpClient`, and the
    /// ``requestTimeout`` holds whatever the client does; redirects are the client's to follow or
    /// not (see ``HTTPClient``).
    ///
    /// - Parameters:
    ///   - issuer: The issuer URL (discovery documents live under it).
    ///   - clientID: The client id.
    ///   - clientSecret: The secret of a confidential client; `nil` for a public client.
    ///   - scopes: The scopes requested by default.
    ///   - httpClient: The transport, such as a ``URLSessionHTTPClient`` on a session of your own.
    ///   - clientAuthentication: How a confidential client authenticates; HTTP Basic by default.
    ///   - requestTimeout: How long one request may take; 30 s by default.
    ///   - transportPolicy: Which URLs requests may go to; ``TransportPolicy/httpsExceptLoopback``
    ///     by default. An issuer the policy does not permit fails the first request with
    ///     ``OAuth2Error/insecureTransport(_:)``.
    ///   - idTokenValidation: Leeway, clock, algorithms and key cache for ID-token validation.
    ///   - dpop: Options to ask every grant for a DPoP-bound token (RFC 9449), bound to a new
    ///     ``DPoPKey``; `nil` (the default) asks for Bearer tokens.
    public init(
        issuer: URL, clientID: String, clientSecret: String? = nil, scopes: [String] = [],
        httpClient: any HTTPClient,
        clientAuthentication: ClientAuthentication = .basic, requestTimeout: TimeInterval = 30,
        transportPolicy: TransportPolicy = .httpsExceptLoopback, idTokenValidation: IDTokenValidator.Options = .init(),
        dpop: DPoPOptions? = nil
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.scopes = scopes
        self.httpClient = httpClient
        self.clientAuthentication = clientAuthentication
        self.requestTimeout = requestTimeout
        self.transportPolicy = transportPolicy
        self.idTokenValidation = idTokenValidation
        self.dpop = dpop
    }

    /// A client whose requests go through `httpClient`, with HTTP Basic client authentication, a
    /// 30 s request timeout and the ``TransportPolicy/httpsExceptLoopback`` policy.
    ///
    /// - Parameters:
    ///   - issuer: The issuer URL (discovery documents live under it).
    ///   - clientID: The client id.
    ///   - clientSecret: The secret of a confidential client; `nil` for a public client.
    ///   - scopes: The scopes requested by default.
    ///   - httpClient: The transport (see ``HTTPClient`` for what stays with this client).
    public convenience init(
        issuer: URL, clientID: String, clientSecret: String? = nil, scopes: [String] = [],
        httpClient: any HTTPClient
    ) {
        self.init(
            issuer: issuer, clientID: clientID, clientSecret: clientSecret, scopes: scopes, httpClient: httpClient,
            clientAuthentication: .basic, requestTimeout: 30, transportPolicy: .httpsExceptLoopback)
    }

    /// A client on a URL session: its requests go through a ``URLSessionHTTPClient`` on `session`
    /// with the same transport policy.
    ///
    /// - Parameters:
    ///   - issuer: The issuer URL (discovery documents live under it).
    ///   - clientID: The client id.
    ///   - clientSecret: The secret of a confidential client; `nil` for a public client.
    ///   - scopes: The scopes requested by default.
    ///   - session: The URL session.
    ///   - clientAuthentication: How a confidential client authenticates; HTTP Basic by default.
    ///   - requestTimeout: How long one request may take; 30 s by default.
    ///   - transportPolicy: Which URLs requests may go to; ``TransportPolicy/httpsExceptLoopback``
    ///     by default. An issuer the policy does not permit fails the first request with
    ///     ``OAuth2Error/insecureTransport(_:)``.
    ///   - idTokenValidation: Leeway, clock, algorithms and key cache for ID-token validation.
    ///   - dpop: Options to ask every grant for a DPoP-bound token; `nil` (the default) asks for
    ///     Bearer tokens.
    public convenience init(
        issuer: URL, clientID: String, clientSecret: String? = nil, scopes: [String] = [],
        session: URLSession = .shared,
        clientAuthentication: ClientAuthentication = .basic, requestTimeout: TimeInterval = 30,
        transportPolicy: TransportPolicy = .httpsExceptLoopback, idTokenValidation: IDTokenValidator.Options = .init(),
        dpop: DPoPOptions? = nil
    ) {
        self.init(
            issuer: issuer, clientID: clientID, clientSecret: clientSecret, scopes: scopes,
            httpClient: URLSessionHTTPClient(session: session, transportPolicy: transportPolicy),
            clientAuthentication: clientAuthentication, requestTimeout: requestTimeout,
            transportPolicy: transportPolicy, idTokenValidation: idTokenValidation, dpop: dpop)
    }

    /// A client for the issuer and client a token was issued by and to.
    ///
    /// - Parameters:
    ///   - context: The token's context.
    ///   - session: The URL session.
    ///   - transportPolicy: Which URLs requests may go to; `https`, or `http` to a loopback
    ///     address, by default.
    public convenience init(
        context: Token.Context, session: URLSession = .shared, transportPolicy: TransportPolicy = .httpsExceptLoopback
    ) {
        self.init(
            issuer: context.issuer, clientID: context.clientID, clientSecret: context.clientSecret,
            scopes: context.scopes, session: session, transportPolicy: transportPolicy)
    }

    /// The context tokens from this client carry.
    func context(scopes requested: [String]?) -> Token.Context {
        Token.Context(issuer: issuer, clientID: clientID, clientSecret: clientSecret, scopes: requested ?? scopes)
    }

    // MARK: Discovery

    /// The server's metadata: OIDC discovery merged with RFC 8414 metadata (which often lists the
    /// revocation and introspection endpoints OIDC discovery omits). Fetched once, then cached.
    ///
    /// Each document must name exactly the configured issuer, and every endpoint in it must be a
    /// URL the ``transportPolicy`` permits; otherwise none of its endpoints is used.
    ///
    /// - Returns: The merged metadata.
    /// - Throws: ``OAuth2Error/insecureTransport(_:)`` for an issuer or endpoint that is not
    ///   `https` (nor `http` to a loopback address), ``OAuth2Error/issuerMismatch(expected:received:)``
    ///   for a document about another issuer, ``OAuth2Error/network(_:)`` or
    ///   ``OAuth2Error/invalidResponse(_:)`` when neither document can be had.
    public func openIDConfiguration() async throws -> OpenIDConfiguration {
        if let cached = discovered.withLock({ $0 }) { return cached }
        try transportPolicy.check(issuer, as: "the issuer")
        async let oidc = discoveryDocument(openIDConfigurationURL)
        async let rfc8414 = discoveryDocument(authorizationServerMetadataURL)
        let (primary, secondary) = (await oidc, await rfc8414)
        if case .failure(let error) = primary, case .failure = secondary { throw error }
        // A document that answered is checked even when the other one failed: one naming another
        // issuer, or pointing at plain-http endpoints, is an error, never silently skipped. A server
        // may lack one of the two documents, but a network failure fetching one is not an answer:
        // merging without it would cache a configuration missing that document's endpoints.
        let documents = try [primary, secondary].map { result -> [String: JSONValue]? in
            switch result {
            case .success(let document):
                return try OpenIDConfiguration.checked(document, issuer: issuer, policy: transportPolicy)
            case .failure(.network(let reason)):
                throw OAuth2Error.network(reason)
            case .failure:
                return nil
            }
        }
        let merged = OpenIDConfiguration.merging(documents[0], documents[1])
        guard merged.tokenEndpoint != nil else {
            throw OAuth2Error.invalidResponse("the discovery documents name no token_endpoint")
        }
        discovered.withLock { $0 = merged }
        return merged
    }

    /// `{issuer}/.well-known/openid-configuration` (OIDC Discovery §4).
    var openIDConfigurationURL: URL {
        issuer.appendingPathComponent(".well-known/openid-configuration")
    }

    /// `{origin}/.well-known/oauth-authorization-server{issuer path}` (RFC 8414 §3).
    var authorizationServerMetadataURL: URL {
        var components = URLComponents(url: issuer, resolvingAgainstBaseURL: false)!
        let path = components.path == "/" ? "" : components.path
        components.path = "/.well-known/oauth-authorization-server" + path
        return components.url!
    }

    private func discoveryDocument(_ url: URL) async -> Result<[String: JSONValue], OAuth2Error> {
        do {
            return .success(try await jsonObject(from: get(url)))
        } catch let error as OAuth2Error {
            return .failure(error)
        } catch {
            return .failure(.network(error.localizedDescription))
        }
    }

    /// The endpoint named `field`, or ``OAuth2Error/missingEndpoint(_:)``.
    func endpoint(_ field: String, _ name: String) async throws -> URL {
        guard let url = try await openIDConfiguration().url(field) else { throw OAuth2Error.missingEndpoint(name) }
        return url
    }

    // MARK: Grants

    /// Refreshes `token` (RFC 6749 §6) and merges the answer into it: new values win; a refresh
    /// token, ID token or device secret the server does not send again is kept; the id and context
    /// are kept; `issuedAt` is the time of the answer. A new ID token is validated, and must be
    /// about the same `sub` as the one it replaces (OpenID Connect Core §12.2); a kept one keeps
    /// its verification state. A DPoP-bound token is refreshed with a proof of its own key (RFC 9449
    /// §5), and the new token must be DPoP-bound too; it keeps the key.
    ///
    /// - Parameter token: The token to refresh.
    /// - Returns: The merged token.
    /// - Throws: ``OAuth2Error/missingToken(_:)`` without a refresh token,
    ///   ``OAuth2Error/dpopKeyMissing`` for a DPoP-bound token without its key,
    ///   ``OAuth2Error/dpopNotBound(tokenType:)`` for a Bearer answer to it,
    ///   ``OAuth2Error/invalidIDToken(_:)`` for a new ID token that fails validation, else the
    ///   request's errors.
    public func refresh(_ token: Token) async throws -> Token {
        guard let refreshToken = token.refreshToken else { throw OAuth2Error.missingToken(.refreshToken) }
        let fresh = try await tokenRequest(
            [("grant_type", "refresh_token"), ("refresh_token", refreshToken)], context: token.context,
            subject: token.idToken?.subject, proofKey: try token.requiredDPoPKey())
        return token.merged(with: fresh)
    }

    /// The client-credentials grant (RFC 6749 §4.4).
    ///
    /// - Parameter scopes: The scopes; the client's by default.
    /// - Returns: The token.
    public func clientCredentials(scopes: [String]? = nil) async throws -> Token {
        try await tokenRequest(
            [("grant_type", "client_credentials")] + scopeField(scopes), context: context(scopes: scopes),
            proofKey: newProofKey())
    }

    /// The resource-owner password grant (RFC 6749 §4.3): legacy, for tests and old servers.
    ///
    /// - Parameters:
    ///   - username: The user.
    ///   - password: The password (never logged).
    ///   - scopes: The scopes; the client's by default.
    /// - Returns: The token.
    public func password(username: String, password: String, scopes: [String]? = nil) async throws -> Token {
        try await tokenRequest(
            [("grant_type", "password"), ("username", username), ("password", password)] + scopeField(scopes),
            context: context(scopes: scopes), proofKey: newProofKey())
    }

    /// Exchanges an authorization code with its PKCE verifier (RFC 6749 §4.1.3, RFC 7636 §4.5).
    ///
    /// - Parameters:
    ///   - code: The code from the redirect.
    ///   - verifier: The PKCE verifier whose challenge went with the authorization request.
    ///   - redirectURI: The same redirect URI.
    ///   - nonce: The nonce sent with the authorization request, if one was: the ID token must
    ///     carry it.
    /// - Returns: The token.
    /// - Throws: ``OAuth2Error/invalidIDToken(_:)`` for an ID token that fails validation, else
    ///   the request's errors.
    public func exchange(code: String, verifier: String, redirectURI: URL, nonce: String? = nil) async throws -> Token {
        try await tokenRequest(
            [
                ("grant_type", "authorization_code"), ("code", code), ("code_verifier", verifier),
                ("redirect_uri", redirectURI.absoluteString),
            ], context: context(scopes: nil), nonce: nonce, proofKey: newProofKey())
    }

    /// The URL to send the user to for the authorization-code flow with PKCE.
    ///
    /// - Parameters:
    ///   - redirectURI: Where the server sends the code.
    ///   - state: An unguessable value to check on return.
    ///   - pkce: The PKCE pair; keep its verifier for ``exchange(code:verifier:redirectURI:nonce:)``.
    ///   - scopes: The scopes; the client's by default.
    ///   - nonce: An unguessable value the ID token must carry back (OpenID Connect Core §3.1.2.1);
    ///     pass the same to ``exchange(code:verifier:redirectURI:nonce:)``.
    /// - Returns: The authorization URL.
    public func authorizationURL(
        redirectURI: URL, state: String, pkce: PKCE, scopes: [String]? = nil, nonce: String? = nil
    ) async throws -> URL {
        let endpoint = try await endpoint("authorization_endpoint", "authorization")
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)!
        components.queryItems =
            (components.queryItems ?? []) + [
                URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "client_id", value: clientID),
                URLQueryItem(name: "redirect_uri", value: redirectURI.absoluteString),
                URLQueryItem(name: "scope", value: (scopes ?? self.scopes).joined(separator: " ")),
                URLQueryItem(name: "state", value: state),
                URLQueryItem(name: "code_challenge", value: pkce.challenge),
                URLQueryItem(name: "code_challenge_method", value: pkce.method),
            ] + (nonce.map { [URLQueryItem(name: "nonce", value: $0)] } ?? [])
        return components.url!
    }

    /// Starts the device authorization grant (RFC 8628 §3.1).
    ///
    /// - Parameter scopes: The scopes; the client's by default.
    /// - Returns: What to show the user and poll with.
    public func deviceAuthorization(scopes: [String]? = nil) async throws -> DeviceAuthorization {
        let endpoint = try await endpoint("device_authorization_endpoint", "device authorization")
        let json = try jsonObject(from: await post(endpoint, form: scopeField(scopes)))
        guard let deviceCode = json["device_code"]?.stringValue, let userCode = json["user_code"]?.stringValue,
            let uri = (json["verification_uri"] ?? json["verification_url"])?.stringValue.flatMap(URL.init(string:))
        else { throw OAuth2Error.invalidResponse("the device authorization response lacks a required field") }
        return DeviceAuthorization(
            deviceCode: deviceCode, userCode: userCode, verificationURI: uri,
            verificationURIComplete: json["verification_uri_complete"]?.stringValue.flatMap(URL.init(string:)),
            expiresIn: Self.number(json["expires_in"]) ?? 600, interval: Self.number(json["interval"]) ?? 5)
    }

    /// Polls the token endpoint until the user approves (RFC 8628 §3.4–3.5): waits `interval`
    /// between polls, adds 5 s on `slow_down`, keeps polling on `authorization_pending`, and stops on
    /// any other error or when the codes expire.
    ///
    /// - Parameters:
    ///   - authorization: What ``deviceAuthorization(scopes:)`` returned.
    ///   - scopes: The scopes the token's context records.
    ///   - sleep: Waits between polls; tests pass one that does not really sleep.
    /// - Returns: The token.
    /// - Throws: ``OAuth2Error/server(error:description:statusCode:)`` for `access_denied`,
    ///   `expired_token` and other errors.
    public func pollForToken(
        _ authorization: DeviceAuthorization, scopes: [String]? = nil,
        sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) async throws -> Token {
        var interval = authorization.interval
        var waited: TimeInterval = 0
        let proofKey = newProofKey()
        while true {
            try await sleep(.milliseconds(Int(interval * 1000)))
            waited += interval
            do {
                return try await tokenRequest(
                    [
                        ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                        ("device_code", authorization.deviceCode),
                    ],
                    context: context(scopes: scopes), proofKey: proofKey)
            } catch OAuth2Error.server(let error, let description, let status) {
                switch error {
                case "authorization_pending": break
                case "slow_down": interval += 5
                default: throw OAuth2Error.server(error: error, description: description, statusCode: status)
                }
                guard waited < authorization.expiresIn else {
                    throw OAuth2Error.server(
                        error: "expired_token", description: "the device code expired before approval",
                        statusCode: status)
                }
            }
        }
    }

    // MARK: Token management

    /// Revokes one token of `token` at the server (RFC 7009), with its `token_type_hint`. Servers
    /// answer 200 for tokens they do not know.
    ///
    /// - Parameters:
    ///   - token: The token set.
    ///   - type: Which token to revoke.
    /// - Throws: ``OAuth2Error/missingToken(_:)`` when the set has none of that kind,
    ///   ``OAuth2Error/missingEndpoint(_:)`` when the server advertises no revocation endpoint.
    public func revoke(_ token: Token, type: Token.Kind) async throws {
        guard let value = token.value(of: type) else { throw OAuth2Error.missingToken(type) }
        let endpoint = try await endpoint("revocation_endpoint", "revocation")
        _ = try await post(endpoint, form: [("token", value), ("token_type_hint", type.typeHint)])
    }

    /// Asks the server about one token of `token` (RFC 7662).
    ///
    /// - Parameters:
    ///   - token: The token set.
    ///   - type: Which token.
    /// - Returns: The server's answer (``TokenInfo/active`` false for revoked or expired tokens).
    public func introspect(_ token: Token, type: Token.Kind) async throws -> TokenInfo {
        guard let value = token.value(of: type) else { throw OAuth2Error.missingToken(type) }
        let endpoint = try await endpoint("introspection_endpoint", "introspection")
        return TokenInfo(
            claims: try jsonObject(
                from: await post(endpoint, form: [("token", value), ("token_type_hint", type.typeHint)])))
    }

    /// The OIDC userinfo for the token's access token.
    ///
    /// - Parameter token: The token set.
    /// - Returns: The user's claims.
    /// - Throws: ``OAuth2Error/server(error:description:statusCode:)`` with 401 for an expired or
    ///   revoked access token.
    public func userInfo(_ token: Token) async throws -> UserInfo {
        let endpoint = try await endpoint("userinfo_endpoint", "userinfo")
        return UserInfo(claims: try jsonObject(from: await get(endpoint, authorizedWith: token)))
    }

    // MARK: Helpers

    /// One token request; with `proofKey`, it carries a DPoP proof of that key, and the token must
    /// come back DPoP-bound (a Bearer answer to a proof would be a silent downgrade).
    func tokenRequest(
        _ form: [(String, String)], context: Token.Context, nonce: String? = nil, subject: String? = nil,
        proofKey: DPoPKey?
    ) async throws -> Token {
        let endpoint = try await endpoint("token_endpoint", "token")
        let (data, _) = try await post(endpoint, form: form, proofKey: proofKey)
        var token = try Token(response: data, context: context, issuedAt: Date())
        if let proofKey {
            guard token.isDPoPBound else { throw OAuth2Error.dpopNotBound(tokenType: token.tokenType) }
            token = token.bound(to: proofKey)
        }
        return try await validatingIDToken(of: token, nonce: nonce, subject: subject)
    }

    /// A new key for a grant when the client asks for DPoP-bound tokens.
    private func newProofKey() -> DPoPKey? {
        dpop == nil ? nil : DPoPKey()
    }

    private func scopeField(_ requested: [String]?) -> [(String, String)] {
        let scopes = requested ?? self.scopes
        return scopes.isEmpty ? [] : [("scope", scopes.joined(separator: " "))]
    }

    private static func number(_ value: JSONValue?) -> TimeInterval? {
        switch value {
        case .number(let number)?: number
        case .string(let text)?: TimeInterval(text)
        default: nil
        }
    }
}

extension Token {
    /// This token updated by a refresh response: new values win, absent ones are kept, and the id
    /// and context never change.
    ///
    /// - Parameter fresh: The decoded refresh response.
    /// - Returns: The merged token.
    public func merged(with fresh: Token) -> Token {
        Token(
            id: id, tokenType: fresh.tokenType, accessToken: fresh.accessToken,
            refreshToken: fresh.refreshToken ?? refreshToken, idToken: fresh.idToken ?? idToken,
            deviceSecret: fresh.deviceSecret ?? deviceSecret, scope: fresh.scope ?? scope, issuedAt: fresh.issuedAt,
            expiresIn: fresh.expiresIn, context: context, dpopKey: fresh.dpopKey ?? dpopKey)
    }
}
