import Foundation
import OAuth2
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// DPoP (RFC 9449) against the real local server, whose middleware checks every proof with
/// jwcrypto: bound tokens from each grant, resource requests it accepts, and each proof it must
/// refuse. Every client has its own nonce store, so tests do not share nonces.
@Suite(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
struct DPoPIntegrationTests {
    static func options() -> DPoPOptions { DPoPOptions(nonces: DPoPNonceStore()) }

    /// A DPoP-bound token for the test user through the password grant.
    static func boundToken(_ server: AuthorizationServer, options: DPoPOptions = options()) async throws -> (
        OAuth2Client, Token
    ) {
        let oauth2 = server.client(dpop: options)
        let token = try await oauth2.password(
            username: AuthorizationServer.username, password: AuthorizationServer.password)
        return (oauth2, token)
    }

    /// A GET of the server's DPoP resource.
    static func resource(_ server: AuthorizationServer) -> URLRequest {
        URLRequest(url: server.dpopResourceURL, timeoutInterval: 10)
    }

    @Test func theCodeFlowGetsABoundTokenTheResourceAndUserinfoAccept() async throws {
        let server = try AuthorizationServer()
        let oauth2 = server.client(
            AuthorizationServer.Client.publicPKCE, scopes: ["openid", "profile"], dpop: Self.options())
        let pkce = PKCE()
        let url = try await oauth2.authorizationURL(
            redirectURI: AuthorizationServer.redirectURI, state: "s", pkce: pkce)
        let redirect = try server.browse(to: url)
        let code = try #require(
            URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code" }?.value
        )
        let token = try await oauth2.exchange(
            code: code, verifier: pkce.verifier, redirectURI: AuthorizationServer.redirectURI)
        #expect(token.tokenType == "DPoP")
        let key = try #require(token.dpopKey)
        #expect(token.idTokenVerified)
        let stats = try await server.dpopStats()
        #expect(stats["proofs_accepted"] as? Int == 1)
        #expect(stats["tokens_bound"] as? Int == 2)  // the access and the refresh token

        let (body, response) = try await oauth2.send(Self.resource(server), authorizedWith: token)
        #expect(response.statusCode == 200)
        #expect((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["username"] as? String == "testuser")
        // The userinfo endpoint takes it with a proof too (and refuses it as a Bearer token).
        #expect(try await oauth2.userInfo(token).preferredUsername == "testuser")
        let bearer = Token(
            id: token.id, tokenType: "Bearer", accessToken: token.accessToken, refreshToken: nil, idToken: nil,
            deviceSecret: nil, scope: nil, issuedAt: token.issuedAt, expiresIn: token.expiresIn, context: token.context)
        await #expect(
            throws: OAuth2Error.server(
                error: "invalid_token", description: "the access token is DPoP-bound", statusCode: 401)
        ) {
            try await oauth2.userInfo(bearer)
        }
        #expect(token.dpopKey === key)
    }

    @Test func theDeviceFlowGetsABoundToken() async throws {
        let server = try AuthorizationServer()
        let oauth2 = server.client(AuthorizationServer.Client.device, scopes: ["openid"], dpop: Self.options())
        let authorization = try await oauth2.deviceAuthorization()
        let token = try await oauth2.pollForToken(authorization) { _ in
            try await server.approveDevice(userCode: authorization.userCode)
        }
        #expect(token.tokenType == "DPoP" && token.dpopKey != nil)
        #expect(try await oauth2.send(Self.resource(server), authorizedWith: token).1.statusCode == 200)
    }

    @Test func aProofSentTwiceIsRefusedTheSecondTime() async throws {
        let server = try AuthorizationServer()
        let (oauth2, token) = try await Self.boundToken(server)
        var request = Self.resource(server)
        try oauth2.authorize(&request, with: token)
        #expect(request.value(forHTTPHeaderField: "Authorization") == "DPoP \(token.accessToken)")
        #expect(request.value(forHTTPHeaderField: "DPoP") != nil)
        let first = try await URLSession.shared.data(for: request)
        let replay = try await URLSession.shared.data(for: request)
        #expect((first.1 as? HTTPURLResponse)?.statusCode == 200)
        #expect((replay.1 as? HTTPURLResponse)?.statusCode == 401)
        #expect(try await server.dpopRejections("replayed jti") == 1)
        // Authorized again, the same request has a new proof and is accepted.
        try oauth2.authorize(&request, with: token)
        #expect((try await URLSession.shared.data(for: request).1 as? HTTPURLResponse)?.statusCode == 200)
    }

    @Test func aProofOfAnotherKeyOrForAnotherRequestIsRefused() async throws {
        let server = try AuthorizationServer()
        let (oauth2, token) = try await Self.boundToken(server)
        #expect(
            try await oauth2.send(Self.resource(server), authorizedWith: token.bound(to: DPoPKey())).1.statusCode == 401
        )
        #expect(try await server.dpopRejections("wrong key") == 1)

        // A proof made for a GET, sent with a POST; one for another URL.
        var request = Self.resource(server)
        try oauth2.authorize(&request, with: token)
        request.httpMethod = "POST"
        #expect((try await URLSession.shared.data(for: request).1 as? HTTPURLResponse)?.statusCode == 401)
        var elsewhere = URLRequest(url: server.dpopResourceURL.appendingPathComponent("x"))
        try oauth2.authorize(&elsewhere, with: token)
        elsewhere.url = server.dpopResourceURL
        #expect((try await URLSession.shared.data(for: elsewhere).1 as? HTTPURLResponse)?.statusCode == 401)
        // A proof whose ath is of another access token.
        var wrongToken = Self.resource(server)
        try oauth2.authorize(&wrongToken, with: token)
        let (_, other) = try await Self.boundToken(server)
        wrongToken.setValue("DPoP \(other.accessToken)", forHTTPHeaderField: "Authorization")
        #expect((try await URLSession.shared.data(for: wrongToken).1 as? HTTPURLResponse)?.statusCode == 401)
        // No proof at all.
        var bare = Self.resource(server)
        bare.setValue("DPoP \(token.accessToken)", forHTTPHeaderField: "Authorization")
        #expect((try await URLSession.shared.data(for: bare).1 as? HTTPURLResponse)?.statusCode == 401)
        let rejections = try await server.dpopStats()["rejections"] as? [String: Int] ?? [:]
        #expect(rejections["wrong htm"] == 1 && rejections["wrong htu"] == 1)
        #expect(rejections["wrong key"] == 1)
        #expect(rejections["wrong ath"] == 1)
        #expect(rejections["missing proof"] == 1)
    }

    @Test func aProofWithAStaleIssuedAtIsRefused() async throws {
        let server = try AuthorizationServer()
        let stale = DPoPOptions(nonces: DPoPNonceStore(), clock: { Date(timeIntervalSinceNow: -600) })
        await #expect(
            throws: OAuth2Error.server(error: "invalid_dpop_proof", description: "stale iat", statusCode: 400)
        ) {
            try await Self.boundToken(server, options: stale)
        }
        #expect(try await server.dpopRejections("stale iat") == 1)
    }

    @Test func aRefreshProvesTheSameKeyAndKeepsTheBinding() async throws {
        let server = try AuthorizationServer()
        let (oauth2, token) = try await Self.boundToken(server)
        let refreshed = try await oauth2.refresh(token)
        #expect(refreshed.tokenType == "DPoP")
        #expect(refreshed.accessToken != token.accessToken)
        #expect(refreshed.dpopKey == token.dpopKey)
        #expect(try await oauth2.send(Self.resource(server), authorizedWith: refreshed).1.statusCode == 200)
        // A client without DPoP options refreshes a bound token with its key all the same.
        let plain = server.client()
        let again = try await plain.refresh(refreshed)
        #expect(again.dpopKey == token.dpopKey && again.tokenType == "DPoP")
        // The same refresh token with a proof of another key is refused by the server.
        await #expect(
            throws: OAuth2Error.server(
                error: "invalid_dpop_proof", description: "the refresh token is bound to another key", statusCode: 400)
        ) {
            try await oauth2.refresh(again.bound(to: DPoPKey()))
        }
        #expect(try await server.tokenRequests("refresh_token") == 3)
    }

    @Test func aTokenWithoutItsKeyIsATypedErrorAndNothingIsSent() async throws {
        let server = try AuthorizationServer()
        let (oauth2, bound) = try await Self.boundToken(server)
        let keyless = bound.bound(to: nil)
        try await server.resetStats()
        var request = Self.resource(server)
        #expect(throws: OAuth2Error.dpopKeyMissing) { try oauth2.authorize(&request, with: keyless) }
        #expect(request.value(forHTTPHeaderField: "Authorization") == nil)
        await #expect(throws: OAuth2Error.dpopKeyMissing) { try await oauth2.refresh(keyless) }
        await #expect(throws: OAuth2Error.dpopKeyMissing) { try await oauth2.userInfo(keyless) }
        await #expect(throws: OAuth2Error.dpopKeyMissing) {
            try await oauth2.send(Self.resource(server), authorizedWith: keyless)
        }
        #expect(try await server.tokenRequests().isEmpty)
        #expect(try await server.dpopStats()["resource_requests"] as? Int == 0)
        // A Bearer token is authorized as before, with no proof.
        let bearer = try await server.passwordToken()
        try server.client().authorize(&request, with: bearer)
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer \(bearer.accessToken)")
        #expect(request.value(forHTTPHeaderField: "DPoP") == nil)
    }

    @Test func aTokenEndpointNonceChallengeIsRetriedOnceAndRemembered() async throws {
        let server = try AuthorizationServer()
        try await server.setDPoP(requireNonce: true)
        let options = Self.options()
        let (oauth2, token) = try await Self.boundToken(server, options: options)
        #expect(token.tokenType == "DPoP")
        #expect(try await server.tokenRequests("password") == 2)
        #expect(try await server.dpopStats()["nonce_challenges"] as? Int == 1)
        #expect(options.nonces.nonce(for: server.url) != nil)
        // The nonce is remembered: the next grant and the refresh are not challenged.
        _ = try await oauth2.password(username: AuthorizationServer.username, password: AuthorizationServer.password)
        _ = try await oauth2.refresh(token)
        #expect(try await server.dpopStats()["nonce_challenges"] as? Int == 1)
        #expect(try await server.tokenRequests() == ["password": 3, "refresh_token": 1])
    }

    @Test func aResourceNonceChallengeIsRetriedOnce() async throws {
        let server = try AuthorizationServer()
        let (oauth2, token) = try await Self.boundToken(server)
        try await server.setDPoP(requireNonce: true)
        try await server.resetStats()
        let (_, response) = try await oauth2.send(Self.resource(server), authorizedWith: token)
        #expect(response.statusCode == 200)
        let stats = try await server.dpopStats()
        #expect(stats["nonce_challenges"] as? Int == 1)
        #expect(stats["resource_requests"] as? Int == 2)
    }

    @Test func aSecondNonceChallengeIsATypedError() async throws {
        let server = try AuthorizationServer()
        let (oauth2, token) = try await Self.boundToken(server)
        try await server.setDPoP(refuseNonce: 2)
        try await server.resetStats()
        await #expect(throws: OAuth2Error.dpopNonceRefused(statusCode: 401)) {
            try await oauth2.send(Self.resource(server), authorizedWith: token)
        }
        #expect(try await server.dpopStats()["resource_requests"] as? Int == 2)
        try await server.setDPoP(refuseNonce: 2)
        await #expect(throws: OAuth2Error.dpopNonceRefused(statusCode: 400)) { try await oauth2.refresh(token) }
        #expect(try await server.tokenRequests("refresh_token") == 2)
        #expect(try await server.dpopStats()["nonce_challenges"] as? Int == 4)
    }

    @Test func aBearerAnswerToAProofIsRefusedNotADowngrade() async throws {
        let server = try AuthorizationServer()
        try await server.setDPoP(enabled: false)  // a server without DPoP support ignores the proof
        await #expect(throws: OAuth2Error.dpopNotBound(tokenType: "Bearer")) { try await Self.boundToken(server) }
        #expect(try await server.tokenRequests("password") == 1)
        // The same client without DPoP options gets its Bearer token.
        let bearer = try await server.passwordToken()
        #expect(bearer.tokenType == "Bearer" && bearer.dpopKey == nil)
    }
}
