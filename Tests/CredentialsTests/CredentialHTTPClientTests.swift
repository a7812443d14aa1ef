import Foundation
import TestSupport
import Testing
import TokenVault

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension CredentialTests {
    /// `Credential.httpClient` carries every request a credential makes, to the real server. Part
    /// of the serialized suite: it changes the process-wide transport (and puts it back). The
    /// recorders record, and fail, only requests to their own test server.
    @Suite(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
    struct HTTPTransport {
        let directory = TemporaryDirectory()
        let vault: Vault

        init() throws {
            vault = try TestVaults.keyFileVault(in: directory).0
            try Credential.use(vault)
        }

        /// A credential loaded before the change uses the new client from its next request on, and
        /// the default again once it is put back.
        @Test func refreshIntrospectionUserinfoRevocationAndDiscoveryGoThroughIt() async throws {
            let server = try AuthorizationServer()
            let credential = try Credential.store(try await server.passwordToken())
            let configuration = try await server.client().openIDConfiguration()
            try await server.resetStats()
            let recorder = RecordingHTTPClient(recording: server.url)
            Credential.httpClient = recorder
            defer { Credential.httpClient = URLSessionHTTPClient() }

            try await credential.refresh()
            #expect(try await credential.introspect(.accessToken).active)
            #expect(try await credential.userInfo().preferredUsername == AuthorizationServer.username)
            try await credential.revoke(type: .accessToken)

            #expect(
                Set(recorder.lines.prefix(2)) == [
                    "GET /.well-known/openid-configuration", "GET /.well-known/oauth-authorization-server",
                ])
            let expected: [RecordingHTTPClient.Request] = try [
                ("POST", configuration.tokenEndpoint), ("POST", configuration.introspectionEndpoint),
                ("GET", configuration.userinfoEndpoint), ("POST", configuration.revocationEndpoint),
            ].map { RecordingHTTPClient.Request(method: $0, url: try #require($1)) }
            // The issuer's key set, fetched for the refreshed ID token unless already cached, goes
            // through the client as well.
            let keySet = recorder.requests.filter { $0.path.hasSuffix("/jwks.json") }.count
            #expect(keySet <= 1)
            #expect(Array(recorder.requests.dropFirst(2)).filter { !$0.path.hasSuffix("/jwks.json") } == expected)
            // Each one reached the server, once.
            #expect(try await server.tokenRequests() == ["refresh_token": 1])
            #expect(recorder.countsByPath.values.allSatisfy { $0 == 1 })
            for (path, count) in recorder.countsByPath {
                #expect(try await server.requests(to: path) == count, "\(path)")
            }

            // Put back, the default client carries the next request, and the recorder sees nothing.
            Credential.httpClient = URLSessionHTTPClient()
            #expect(try await !credential.introspect(.accessToken).active)
            #expect(recorder.requests.count == 6 + keySet)
            #expect(try await server.requests(to: expected[1].path) == 2)
        }

        /// A client that throws gives a typed network error without its message, and the stored
        /// token stays as it was.
        @Test func aThrowingClientIsATypedErrorAndChangesNothing() async throws {
            let server = try AuthorizationServer()
            let credential = try Credential.store(try await server.passwordToken())
            let before = credential.token
            let failing = RecordingHTTPClient(recording: server.url, failure: Unreachable())
            Credential.httpClient = failing
            defer { Credential.httpClient = URLSessionHTTPClient() }
            try await server.resetStats()
            do {
                try await credential.refresh()
                Issue.record("a failing client refreshed")
            } catch let error as CredentialError {
                #expect(error == .oauth2(.network("the HTTP client failed (Unreachable)")))
                #expect(!error.localizedDescription.contains(Unreachable.secret))
            }
            #expect(credential.token == before)
            #expect(try Credential.tokenStorage.token(id: before.id, prompt: nil, authenticationContext: nil) == before)
            #expect(failing.requests.count == 2)  // the two discovery documents, nothing after
            #expect(try await server.requests(to: "/.well-known/openid-configuration") == 0)
        }

        /// A credential for a plain-http issuer on a network is refused before the client is asked.
        @Test func aPlainHTTPIssuerNeverReachesTheClient() async throws {
            let issuer = URL(string: "http://example.com")!
            let recorder = RecordingHTTPClient(recording: issuer)
            Credential.httpClient = recorder
            defer { Credential.httpClient = URLSessionHTTPClient() }
            let token = Token(
                id: UUID().uuidString, tokenType: "Bearer", accessToken: "at", refreshToken: "rt", idToken: nil,
                deviceSecret: nil, scope: nil, issuedAt: Date(), expiresIn: 0,
                context: Token.Context(issuer: issuer, clientID: "c", clientSecret: "client-secret-value"))
            let credential = try Credential.store(token)
            let refused = CredentialError.oauth2(.insecureTransport("the issuer (http://example.com)"))
            await #expect(throws: refused) { try await credential.refresh() }
            await #expect(throws: refused) { try await credential.introspect(.accessToken) }
            await #expect(throws: refused) { try await credential.userInfo() }
            await #expect(throws: refused) { try await credential.revoke() }
            #expect(recorder.requests.isEmpty)
        }
    }
}

/// An error whose description holds a secret, as a careless client's might.
private struct Unreachable: Error, LocalizedError {
    static let secret = "secret-from-the-client-error"
    var errorDescription: String? { Self.secret }
}
