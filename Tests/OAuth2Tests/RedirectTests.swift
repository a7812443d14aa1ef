import Foundation
import OAuth2
import TestSupport
import Testing

/// A redirect never takes the client secret, a token or a request body to another origin: two
/// scripted servers on 127.0.0.1, the issuer answering a redirect to the other, which records
/// whatever reaches it.
@Suite(.enabled(if: StubHTTPServer.isAvailable, StubHTTPServer.skipComment))
struct RedirectTests {
    static let secret = "client-secret-value"
    static var tokenJSON: [String: Any] { ["access_token": "at", "token_type": "Bearer", "expires_in": 60] }

    /// The issuer, whose token, revocation, introspection and userinfo endpoints all answer
    /// `status` with a `Location` at `target`'s origin, and `target`, which answers them all.
    static func servers(status: Int) async throws -> (issuer: StubHTTPServer, target: StubHTTPServer) {
        let issuer = try StubHTTPServer()
        let target = try StubHTTPServer()
        let origin = issuer.url.absoluteString
        try await issuer.route(
            "/.well-known/openid-configuration",
            json: [
                "issuer": origin, "token_endpoint": origin + "/token", "revocation_endpoint": origin + "/revoke",
                "introspection_endpoint": origin + "/introspect", "userinfo_endpoint": origin + "/userinfo",
            ])
        for path in ["/token", "/revoke", "/introspect", "/userinfo"] {
            try await issuer.route(path, status: status, headers: ["Location": target.url.absoluteString + path])
        }
        try await target.route("/token", json: tokenJSON)
        try await target.route("/revoke", json: [String: String]())
        try await target.route("/introspect", json: ["active": true])
        try await target.route("/userinfo", json: ["sub": "someone"])
        return (issuer, target)
    }

    static func token(_ issuer: URL) -> Token {
        Token(
            id: "t", tokenType: "Bearer", accessToken: "access-token-value", refreshToken: "refresh-token-value",
            idToken: nil, deviceSecret: nil, scope: nil, issuedAt: Date(), expiresIn: 60,
            context: Token.Context(issuer: issuer, clientID: "c", clientSecret: secret))
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func noRequestFollowsARedirectToAnotherOrigin(status: Int) async throws {
        let (issuer, target) = try await Self.servers(status: status)
        defer {
            issuer.stop()
            target.stop()
        }
        let refused = OAuth2Error.redirectRefused("another origin (\(target.url.absoluteString))")
        for authentication in [ClientAuthentication.basic, .post] {
            let client = OAuth2Client(
                issuer: issuer.url, clientID: "c", clientSecret: Self.secret, clientAuthentication: authentication,
                requestTimeout: 10)
            let token = Self.token(issuer.url)
            await #expect(throws: refused) { try await client.clientCredentials() }
            await #expect(throws: refused) { try await client.password(username: "u", password: "user-password") }
            await #expect(throws: refused) { try await client.refresh(token) }
            await #expect(throws: refused) { try await client.revoke(token, type: .refreshToken) }
            await #expect(throws: refused) { try await client.introspect(token, type: .accessToken) }
            await #expect(throws: refused) { try await client.userInfo(token) }
        }
        // The issuer really got the secrets (so the check below would see them leak)...
        let sent = try await issuer.requests()
        #expect(sent.contains { $0.header("Authorization")?.hasPrefix("Basic ") == true })
        #expect(sent.contains { $0.body.contains(Self.secret) })
        #expect(sent.contains { $0.header("Authorization") == "Bearer access-token-value" })
        // ...and nothing at all reached the other origin.
        #expect(try await target.requests().isEmpty)
    }

    @Test func discoveryIsNotFetchedFromAnotherOrigin() async throws {
        let issuer = try StubHTTPServer()
        let target = try StubHTTPServer()
        defer {
            issuer.stop()
            target.stop()
        }
        for path in ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"] {
            try await issuer.route(path, status: 307, headers: ["Location": target.url.absoluteString + path])
            try await target.route(
                path,
                json: ["issuer": issuer.url.absoluteString, "token_endpoint": target.url.absoluteString + "/token"])
        }
        let client = OAuth2Client(issuer: issuer.url, clientID: "c", clientSecret: Self.secret, requestTimeout: 10)
        await #expect(throws: OAuth2Error.redirectRefused("another origin (\(target.url.absoluteString))")) {
            try await client.clientCredentials()
        }
        #expect(try await target.requests().isEmpty)
    }

    @Test func aRedirectToPlainHTTPOnTheNetworkIsRefused() async throws {
        let issuer = try StubHTTPServer()
        defer { issuer.stop() }
        let origin = issuer.url.absoluteString
        try await issuer.route(
            "/.well-known/openid-configuration", json: ["issuer": origin, "token_endpoint": origin + "/token"])
        try await issuer.route("/token", status: 307, headers: ["Location": "http://auth.example.com/token"])
        let client = OAuth2Client(issuer: issuer.url, clientID: "c", clientSecret: Self.secret, requestTimeout: 10)
        await #expect(throws: OAuth2Error.insecureTransport("a redirect (http://auth.example.com)")) {
            try await client.clientCredentials()
        }
    }

    /// Redirects within the origin still work (a server moving its token endpoint, say).
    @Test(arguments: [307, 308])
    func aRedirectWithinTheOriginIsFollowed(status: Int) async throws {
        let issuer = try StubHTTPServer()
        defer { issuer.stop() }
        let origin = issuer.url.absoluteString
        try await issuer.route(
            "/.well-known/openid-configuration", json: ["issuer": origin, "token_endpoint": origin + "/token"])
        try await issuer.route("/token", status: status, headers: ["Location": "/v2/token"])
        try await issuer.route("/v2/token", json: Self.tokenJSON)
        let client = OAuth2Client(issuer: issuer.url, clientID: "c", clientSecret: Self.secret, requestTimeout: 10)
        #expect(try await client.clientCredentials().accessToken == "at")
        #expect(try await issuer.requests().map(\.path).suffix(2) == ["/token", "/v2/token"])
    }
}
