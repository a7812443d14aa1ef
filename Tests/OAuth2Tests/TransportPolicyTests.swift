import Foundation
import OAuth2
import Testing

/// Which URLs the client may send requests to, and that an issuer outside them fails before any
/// request.
@Suite struct TransportPolicyTests {
    typealias Policy = OAuth2Client.TransportPolicy

    @Test(arguments: [
        "https://id.example.com", "https://id.example.com:8443/tenant", "https://10.0.0.1/", "HTTPS://ID.EXAMPLE.COM",
        "http://127.0.0.1:8000/token", "http://127.255.255.254/", "http://127.0.0.1", "http://[::1]:8080/",
        "http://[0:0:0:0:0:0:0:1]/", "http://localhost:9000", "http://LocalHost/", "HTTP://127.0.0.1/",
    ])
    func httpsAndLoopbackHTTPArePermitted(url: String) throws {
        #expect(Policy.httpsExceptLoopback.permits(try #require(URL(string: url))))
    }

    @Test(arguments: [
        "http://id.example.com", "http://10.0.0.1/", "http://192.168.1.1:8080/token", "http://128.0.0.1/",
        "http://126.255.255.255/", "http://127.0.0.1.example.com/", "http://localhost.example.com/",
        "http://example.com/127.0.0.1", "http://user@id.example.com/", "http://[::2]/", "http://[::ffff:127.0.0.1]/",
        "http://0.0.0.0/", "ftp://127.0.0.1/", "ws://127.0.0.1/", "file:///tmp/token", "https:///token", "/token",
    ])
    func everythingElseIsRefused(url: String) throws {
        #expect(!Policy.httpsExceptLoopback.permits(try #require(URL(string: url))))
    }

    @Test func theOptOutAllowsPlainHTTPToAnyHostAndNothingMore() throws {
        for url in ["http://id.example.com", "http://10.0.0.1:8080/token", "https://id.example.com"] {
            #expect(Policy.allowsInsecureHTTP.permits(try #require(URL(string: url))))
        }
        for url in ["ftp://id.example.com/", "file:///tmp/token", "/token"] {
            #expect(!Policy.allowsInsecureHTTP.permits(try #require(URL(string: url))))
        }
    }

    @Test func theDefaultIsHTTPSExceptLoopback() {
        let client = OAuth2Client(issuer: URL(string: "https://id.example.com")!, clientID: "c")
        #expect(client.transportPolicy == .httpsExceptLoopback)
        #expect(OAuth2Client(context: TestContext.insecure).transportPolicy == .httpsExceptLoopback)
    }

    /// A plain-http issuer on a real network is refused by every call before a single request: a
    /// password, client secret or refresh token would otherwise cross the network in clear.
    @Test func aPlainHTTPIssuerFailsEveryCallBeforeAnyRequest() async throws {
        let client = OAuth2Client(
            issuer: URL(string: "http://id.example.com/tenant")!, clientID: "c", clientSecret: "client-secret-value")
        let token = Token(
            id: "t", tokenType: "Bearer", accessToken: "at", refreshToken: "rt", idToken: nil, deviceSecret: nil,
            scope: nil, issuedAt: Date(), expiresIn: 60, context: TestContext.insecure)
        let refused = OAuth2Error.insecureTransport("the issuer (http://id.example.com)")
        await #expect(throws: refused) { try await client.openIDConfiguration() }
        await #expect(throws: refused) { try await client.password(username: "u", password: "p") }
        await #expect(throws: refused) { try await client.clientCredentials() }
        await #expect(throws: refused) { try await client.refresh(token) }
        await #expect(throws: refused) { try await client.revoke(token, type: .refreshToken) }
        await #expect(throws: refused) { try await client.introspect(token, type: .accessToken) }
        await #expect(throws: refused) { try await client.userInfo(token) }
        await #expect(throws: refused) { try await client.deviceAuthorization() }
        await #expect(throws: refused) { try await OAuth2Client(context: token.context).refresh(token) }
        #expect(!refused.localizedDescription.contains("client-secret-value"))
    }

    /// The error shows the URL's origin only: a user, password, path or query in it stays out.
    @Test func theErrorShowsOnlyTheOrigin() async {
        let client = OAuth2Client(
            issuer: URL(string: "http://user:url-password@id.example.com:8080/tenant?key=url-secret")!, clientID: "c")
        await #expect(throws: OAuth2Error.insecureTransport("the issuer (http://id.example.com:8080)")) {
            try await client.openIDConfiguration()
        }
    }

    /// With the opt-out the same issuer is tried (and fails only because nothing answers there).
    @Test func theOptOutLetsAPlainHTTPIssuerThrough() async {
        let client = OAuth2Client(
            issuer: URL(string: "http://127.0.0.1.invalid")!, clientID: "c", requestTimeout: 5,
            transportPolicy: .allowsInsecureHTTP)
        do {
            _ = try await client.openIDConfiguration()
            Issue.record("discovery at a host that does not exist succeeded")
        } catch OAuth2Error.network {
        } catch {
            Issue.record("expected a network error, got \(error)")
        }
    }
}

private enum TestContext {
    static let insecure = Token.Context(issuer: URL(string: "http://id.example.com/tenant")!, clientID: "c")
}
