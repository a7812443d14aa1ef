import Foundation
import Locking
import OAuth2
import TestSupport
import Testing

/// ID tokens of the real Django OAuth Toolkit server (RS256 with its 2048-bit key, keys from its
/// `jwks_uri`): real grants validate, and forgeries are refused, each with the check it fails.
@Suite(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
struct IDTokenIntegrationTests {
    static let jwksPath = "/.well-known/jwks.json"

    /// The real time until ``freeze()``, then a time that moves only when told: the server's
    /// `iat` is in the past however long a loaded machine took to answer, and the test skips ahead
    /// instead of sleeping.
    final class TestClock: Sendable {
        private let frozen = Locked<Date?>(nil)

        var now: Date { frozen.value ?? Date() }

        func freeze() {
            frozen.withLock { $0 = $0 ?? Date() }
        }

        func advance(by seconds: TimeInterval) {
            frozen.withLock { $0 = ($0 ?? Date()).addingTimeInterval(seconds) }
        }
    }

    func client(
        _ server: AuthorizationServer, _ client: (String, String?) = AuthorizationServer.Client.confidentialPassword,
        cache: JWKSCache, clock: @escaping @Sendable () -> Date = { Date() }
    ) -> OAuth2Client {
        OAuth2Client(
            issuer: server.url, clientID: client.0, clientSecret: client.1, scopes: ["openid", "profile", "email"],
            requestTimeout: 10, idTokenValidation: .init(keyCache: cache, clock: clock))
    }

    /// A code for `url`, through the server's login form.
    func code(_ server: AuthorizationServer, _ url: URL) throws -> String {
        let redirect = try server.browse(to: url)
        return try #require(
            URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code" }?.value
        )
    }

    @Test func realGrantsReturnVerifiedIDTokensWithOneKeySetFetch() async throws {
        let server = try AuthorizationServer()
        let cache = JWKSCache()
        let oauth2 = client(server, cache: cache)
        let token = try await oauth2.password(
            username: AuthorizationServer.username, password: AuthorizationServer.password)
        #expect(token.idToken == nil)
        #expect(!token.idTokenVerified)
        let refreshed = try await oauth2.refresh(token)
        #expect(refreshed.idTokenVerified)
        #expect(refreshed.idToken?.header["alg"] == .string("RS256"))
        #expect(try await oauth2.refresh(refreshed).idTokenVerified)

        let pkceClient = client(server, AuthorizationServer.Client.publicPKCE, cache: cache)
        let pkce = PKCE()
        let nonce = UUID().uuidString
        let url = try await pkceClient.authorizationURL(
            redirectURI: AuthorizationServer.redirectURI, state: "state", pkce: pkce, nonce: nonce)
        let exchanged = try await pkceClient.exchange(
            code: try code(server, url), verifier: pkce.verifier, redirectURI: AuthorizationServer.redirectURI,
            nonce: nonce)
        #expect(exchanged.idTokenVerified)
        #expect(exchanged.idToken?[.nonce] as? String == nonce)
        #expect(exchanged.idToken?.audience == [AuthorizationServer.Client.publicPKCE.0])
        // Three ID tokens of two clients, one issuer: the key set was fetched once.
        #expect(try await server.requests(to: Self.jwksPath) == 1)
    }

    @Test func theNonceSentMustComeBack() async throws {
        let server = try AuthorizationServer()
        let oauth2 = client(server, AuthorizationServer.Client.publicPKCE, cache: JWKSCache())
        let pkce = PKCE()
        let withNonce = try await oauth2.authorizationURL(
            redirectURI: AuthorizationServer.redirectURI, state: "state", pkce: pkce, nonce: "sent-nonce")
        await #expect(throws: OAuth2Error.invalidIDToken(.wrongNonce)) {
            try await oauth2.exchange(
                code: try code(server, withNonce), verifier: pkce.verifier,
                redirectURI: AuthorizationServer.redirectURI,
                nonce: "another-nonce")
        }
        let withoutNonce = try await oauth2.authorizationURL(
            redirectURI: AuthorizationServer.redirectURI, state: "state", pkce: pkce)
        await #expect(throws: OAuth2Error.invalidIDToken(.missingClaim("nonce"))) {
            try await oauth2.exchange(
                code: try code(server, withoutNonce), verifier: pkce.verifier,
                redirectURI: AuthorizationServer.redirectURI, nonce: "expected-nonce")
        }
    }

    @Test func forgeriesAreRefusedEachForTheCheckItFails() async throws {
        let server = try AuthorizationServer()
        let cache = JWKSCache()
        let oauth2 = client(server, cache: cache)
        let real = try #require(try await oauth2.refresh(try await server.passwordToken()).idToken)
        let kid = try #require(real.header["kid"]?.stringValue)
        let claims = real.claims.compactMapValues(\.anyValue)
        let serverKey = try TestSigningKey(authorizationServerKeyID: kid)
        func changed(_ changes: [String: Any]) -> [String: Any] { claims.merging(changes) { $1 } }
        func refused(
            _ token: String, _ expected: IDTokenValidationError, by client: OAuth2Client? = nil,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async {
            await #expect(throws: OAuth2Error.invalidIDToken(expected), sourceLocation: sourceLocation) {
                try await (client ?? oauth2).validateIDToken(try JWT(token))
            }
        }

        // Signed with the server's own key, the same claims pass: each refusal below is its check's.
        #expect(try await oauth2.validateIDToken(try JWT(try serverKey.token(claims))).isVerified)

        await refused(try TestSigningKey(.rsa, keyID: kid).token(claims), .badSignature)
        let parts = real.rawValue.split(separator: ".").map(String.init)
        await refused(
            [parts[0], try TestSigningKey.part(changed(["sub": "2"])), parts[2]].joined(separator: "."), .badSignature)
        await refused(
            try TestSigningKey.part(["alg": "none", "typ": "JWT"]) + "." + TestSigningKey.part(claims) + ".",
            .unsupportedAlgorithm("none"))
        let hs256Input =
            try TestSigningKey.part(["alg": "HS256", "kid": kid, "typ": "JWT"]) + "." + TestSigningKey.part(claims)
        let mac = try TestSigningKey.hmacSHA256(key: try serverKey.publicKeyPEM(), message: Array(hs256Input.utf8))
        await refused(hs256Input + "." + TestTokens.base64URL(Data(mac)), .unsupportedAlgorithm("HS256"))
        await refused(try TestSigningKey(.p256, keyID: kid).token(claims), .wrongKeyType)
        await refused(try serverKey.token(changed(["iss": server.url.absoluteString + "/"])), .wrongIssuer)
        await refused(try serverKey.token(changed(["aud": "tv-public-pkce"])), .wrongAudience)
        await refused(
            real.rawValue, .wrongAudience, by: client(server, AuthorizationServer.Client.publicPKCE, cache: cache))

        let expiry = try #require(real.expirationTime)
        await refused(real.rawValue, .expired, by: client(server, cache: cache) { expiry.addingTimeInterval(61) })
        #expect(
            try await client(server, cache: cache) { expiry.addingTimeInterval(59) }.validateIDToken(real).isVerified)
        let issued = try #require(real.issuedAt)
        await refused(
            real.rawValue, .issuedInTheFuture, by: client(server, cache: cache) { issued.addingTimeInterval(-61) })
        // Every kid above was the server's: the set was fetched once.
        #expect(try await server.requests(to: Self.jwksPath) == 1)
    }

    @Test func anUnknownKidCostsOneRefetchThenIsRefusedWithoutMore() async throws {
        let server = try AuthorizationServer()
        let clock = TestClock()
        let oauth2 = client(server, cache: JWKSCache(minimumRefetchInterval: 60), clock: { clock.now })
        let real = try #require(try await oauth2.refresh(try await server.passwordToken()).idToken)
        clock.freeze()
        #expect(try await server.requests(to: Self.jwksPath) == 1)
        let serverKey = try TestSigningKey(authorizationServerKeyID: "rotated-in")
        let forged = try JWT(try serverKey.token(real.claims.compactMapValues(\.anyValue)))

        // The set is seconds old: a kid it lacks is refused without asking again.
        await #expect(throws: OAuth2Error.invalidIDToken(.unknownKey)) { try await oauth2.validateIDToken(forged) }
        #expect(try await server.requests(to: Self.jwksPath) == 1)
        // Past the minimum interval, one refetch; the kid is still unknown, and asking again waits.
        clock.advance(by: 61)
        await #expect(throws: OAuth2Error.invalidIDToken(.unknownKey)) { try await oauth2.validateIDToken(forged) }
        #expect(try await server.requests(to: Self.jwksPath) == 2)
        for _ in 0..<5 {
            await #expect(throws: OAuth2Error.invalidIDToken(.unknownKey)) { try await oauth2.validateIDToken(forged) }
        }
        #expect(try await server.requests(to: Self.jwksPath) == 2)
        clock.advance(by: 61)
        await #expect(throws: OAuth2Error.invalidIDToken(.unknownKey)) { try await oauth2.validateIDToken(forged) }
        #expect(try await server.requests(to: Self.jwksPath) == 3)
        #expect(try await oauth2.validateIDToken(real).isVerified)
        #expect(try await server.requests(to: Self.jwksPath) == 3)
    }

    /// The device grant (RFC 8628) from a server that answers it with an ID token, as OpenID
    /// providers do: `pollForToken` returns it verified, after fetching the issuer's keys.
    @Test func theDeviceGrantReturnsAVerifiedIDToken() async throws {
        let server = try AuthorizationServer(.init(deviceIDToken: true))
        let oauth2 = client(server, AuthorizationServer.Client.device, cache: JWKSCache())
        let authorization = try await oauth2.deviceAuthorization()
        let token = try await oauth2.pollForToken(authorization) { _ in
            try await server.approveDevice(userCode: authorization.userCode)
        }
        let idToken = try #require(token.idToken)
        #expect(token.idTokenVerified)
        #expect(idToken.isVerified)
        #expect(idToken.audience == [AuthorizationServer.Client.device.0])
        #expect(idToken.preferredUsername == AuthorizationServer.username)
        #expect(try await server.requests(to: Self.jwksPath) == 1)
    }

    /// DOT's own device grant gives no ID token, so there is nothing to mark verified.
    @Test func aDeviceGrantWithoutAnIDTokenIsNotMarkedVerified() async throws {
        let server = try AuthorizationServer()
        let oauth2 = client(server, AuthorizationServer.Client.device, cache: JWKSCache())
        let authorization = try await oauth2.deviceAuthorization()
        let token = try await oauth2.pollForToken(authorization) { _ in
            try await server.approveDevice(userCode: authorization.userCode)
        }
        #expect(token.idToken == nil)
        #expect(!token.idTokenVerified)
    }

    @Test func aRefreshedIDTokenMustBeAboutTheSameUser() async throws {
        let server = try AuthorizationServer()
        let oauth2 = client(server, cache: JWKSCache())
        let token = try await server.passwordToken()
        let someoneElses = Token(
            id: token.id, tokenType: token.tokenType, accessToken: token.accessToken, refreshToken: token.refreshToken,
            idToken: try JWT(TestTokens.jwt(["sub": "someone-else"])), deviceSecret: nil, scope: token.scope,
            issuedAt: token.issuedAt, expiresIn: token.expiresIn, context: token.context)
        await #expect(throws: OAuth2Error.invalidIDToken(.wrongSubject)) { try await oauth2.refresh(someoneElses) }
    }

    @Test func noTokenIsReturnedWhenTheKeysCannotBeFetched() async throws {
        let server = try AuthorizationServer(.init(rotateRefreshTokens: false, reuseProtection: false))
        let oauth2 = client(server, cache: JWKSCache())
        let token = try await server.passwordToken()
        try await server.armFault("status500", path: Self.jwksPath)
        await #expect(throws: OAuth2Error.unexpectedStatus(500)) { try await oauth2.refresh(token) }
        #expect(try await oauth2.refresh(token).idTokenVerified)
    }
}
