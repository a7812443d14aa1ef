import Foundation
import OAuth2
import TestSupport
import Testing

/// Discovery documents are used only when they name exactly the configured issuer and every
/// endpoint in them is `https` (or loopback `http`), checked against a scripted server.
@Suite(.enabled(if: StubHTTPServer.isAvailable, StubHTTPServer.skipComment))
struct DiscoveryValidationTests {
    static let endpointFields = [
        "authorization_endpoint", "token_endpoint", "userinfo_endpoint", "revocation_endpoint",
        "introspection_endpoint", "device_authorization_endpoint", "jwks_uri",
    ]

    /// A server whose OIDC document is `document(issuer URL)` and whose token endpoint answers
    /// the client-credentials grant.
    static func server(_ document: (String) -> [String: Any]) async throws -> StubHTTPServer {
        let server = try StubHTTPServer()
        try await server.route("/.well-known/openid-configuration", json: document(server.url.absoluteString))
        try await server.route("/token", json: ["access_token": "at", "token_type": "Bearer", "expires_in": 60])
        return server
    }

    /// Every endpoint of a valid document, at the server's own origin.
    static func document(issuer: String) -> [String: Any] {
        var fields: [String: Any] = ["issuer": issuer]
        for field in endpointFields { fields[field] = issuer + "/" + field.replacingOccurrences(of: "_", with: "-") }
        fields["token_endpoint"] = issuer + "/token"
        return fields
    }

    static func client(_ server: StubHTTPServer, policy: OAuth2Client.TransportPolicy = .httpsExceptLoopback)
        -> OAuth2Client
    {
        OAuth2Client(
            issuer: server.url, clientID: "c", clientSecret: "client-secret-value", requestTimeout: 10,
            transportPolicy: policy)
    }

    /// A network failure while fetching one of the two documents is an error, and nothing is cached:
    /// a configuration merged without that document would lack its endpoints for good.
    @Test func aNetworkFailureOnOneDocumentIsAnErrorAndNotCached() async throws {
        let server = try await Self.server { issuer in
            var document = Self.document(issuer: issuer)
            document["device_authorization_endpoint"] = nil
            return document
        }
        defer { server.stop() }
        let metadata = "/.well-known/oauth-authorization-server"
        try await server.dropConnections(on: metadata)
        let client = Self.client(server)
        await #expect {
            try await client.openIDConfiguration()
        } throws: { error in
            if case OAuth2Error.network = error { return true }
            return false
        }
        try await server.route(metadata, json: Self.document(issuer: server.url.absoluteString))
        #expect(try await client.openIDConfiguration().deviceAuthorizationEndpoint != nil)
    }

    @Test func aMatchingDocumentWithLoopbackEndpointsIsUsed() async throws {
        let server = try await Self.server { Self.document(issuer: $0) }
        defer { server.stop() }
        let token = try await Self.client(server).clientCredentials()
        #expect(token.accessToken == "at")
        #expect(try await server.requests().contains { $0.path == "/token" })
    }

    @Test(arguments: endpointFields)
    func aPlainHTTPEndpointIsRefused(field: String) async throws {
        let insecure = "http://auth.example.com/" + field
        let server = try await Self.server { issuer in
            var document = Self.document(issuer: issuer)
            document[field] = insecure
            return document
        }
        defer { server.stop() }
        let client = Self.client(server)
        let refused = OAuth2Error.insecureTransport("\(field) (http://auth.example.com)")
        await #expect(throws: refused) { try await client.openIDConfiguration() }
        await #expect(throws: refused) { try await client.clientCredentials() }
        #expect(try await !server.requests().contains { $0.path == "/token" })

        // https elsewhere is fine; plain http elsewhere only with the explicit opt-out.
        let https = try await Self.server { issuer in
            var document = Self.document(issuer: issuer)
            document[field] = "https://auth.example.com/" + field
            return document
        }
        defer { https.stop() }
        #expect(
            try await Self.client(https).openIDConfiguration().url(field)
                == URL(string: "https://auth.example.com/" + field))
        let optedOut = try await Self.client(server, policy: .allowsInsecureHTTP).openIDConfiguration()
        #expect(optedOut.url(field) == URL(string: insecure))
    }

    @Test func anEndpointFromTheRFC8414DocumentIsCheckedToo() async throws {
        let server = try await Self.server { Self.document(issuer: $0) }
        defer { server.stop() }
        var metadata = Self.document(issuer: server.url.absoluteString)
        metadata["revocation_endpoint"] = "http://auth.example.com/revoke"
        try await server.route("/.well-known/oauth-authorization-server", json: metadata)
        await #expect(throws: OAuth2Error.insecureTransport("revocation_endpoint (http://auth.example.com)")) {
            try await Self.client(server).openIDConfiguration()
        }
    }

    /// RFC 8414 §3.3 and OIDC Discovery §4.3: identical, so not even a trailing slash or a
    /// different case is accepted.
    @Test(arguments: ["/", "/other", "/.", "?x=1"])
    func theIssuerMustMatchExactly(suffix: String) async throws {
        let server = try await Self.server { Self.document(issuer: $0 + suffix) }
        defer { server.stop() }
        let expected = server.url.absoluteString
        let mismatch = OAuth2Error.issuerMismatch(expected: expected, received: expected + suffix)
        await #expect(throws: mismatch) { try await Self.client(server).openIDConfiguration() }
        await #expect(throws: mismatch) { try await Self.client(server).clientCredentials() }
        #expect(try await !server.requests().contains { $0.path == "/token" })
    }

    @Test func anotherIssuersDocumentIsRefused() async throws {
        for (named, received) in [
            ("https://evil.example.com", "https://evil.example.com"), ("HTTP://127.0.0.1", "HTTP://127.0.0.1"),
            ("not a url", nil), ("", nil),
        ] as [(String, String?)] {
            let server = try await Self.server { issuer in
                var document = Self.document(issuer: issuer)
                document["issuer"] = named
                return document
            }
            defer { server.stop() }
            await #expect(
                throws: OAuth2Error.issuerMismatch(expected: server.url.absoluteString, received: received)
            ) { try await Self.client(server).openIDConfiguration() }
        }
        let missing = try await Self.server { issuer in
            var document = Self.document(issuer: issuer)
            document["issuer"] = nil
            return document
        }
        defer { missing.stop() }
        await #expect(throws: OAuth2Error.issuerMismatch(expected: missing.url.absoluteString, received: nil)) {
            try await Self.client(missing).openIDConfiguration()
        }
    }

    /// One matching document does not vouch for the other: an RFC 8414 document about another
    /// issuer fails discovery instead of lending its endpoints to the merge.
    @Test func theRFC8414DocumentMustNameTheIssuerToo() async throws {
        let server = try await Self.server { Self.document(issuer: $0) }
        defer { server.stop() }
        var metadata = Self.document(issuer: "https://evil.example.com")
        metadata["revocation_endpoint"] = "https://evil.example.com/revoke"
        try await server.route("/.well-known/oauth-authorization-server", json: metadata)
        await #expect(
            throws: OAuth2Error.issuerMismatch(
                expected: server.url.absoluteString, received: "https://evil.example.com")
        ) { try await Self.client(server).openIDConfiguration() }
    }

    @Test func mismatchErrorsNameTheCheckAndNoSecret() {
        let error = OAuth2Error.issuerMismatch(expected: "https://id.example.com", received: "https://id.example.com/")
        let text = error.localizedDescription
        #expect(text.contains("issuer"))
        #expect(text.contains("identical"))
        #expect(!OAuth2Error.insecureTransport("token_endpoint (http://auth.example.com)").localizedDescription.isEmpty)
    }
}
