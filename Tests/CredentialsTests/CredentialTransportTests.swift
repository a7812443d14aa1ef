import Foundation
import TestSupport
import Testing
import TokenVault

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension CredentialTests {
    /// What a hostile token endpoint can make `authorize` do. Part of the serialized suite: it uses
    /// the process-wide `Credential` state.
    @Suite(.enabled(if: StubHTTPServer.isAvailable, StubHTTPServer.skipComment))
    struct Transport {
        init() {
            Credential.tokenStorage = InMemoryTokenStorage()
        }

        /// A refresh answer whose `token_type` (or `access_token`) carries a line break is refused,
        /// so `authorize` throws and sets no header at all instead of adding the server's header.
        @Test(arguments: [("fresh", "Bearer\r\nX-Injected: yes"), ("fresh\r\nX-Injected: yes", "Bearer")])
        func authorizeNeverSetsAHeaderLineFromTheServer(accessToken: String, tokenType: String) async throws {
            let server = try StubHTTPServer()
            defer { server.stop() }
            let origin = server.url.absoluteString
            try await server.route(
                "/.well-known/openid-configuration", json: ["issuer": origin, "token_endpoint": origin + "/token"])
            try await server.route(
                "/token", json: ["access_token": accessToken, "token_type": tokenType, "expires_in": 3600])
            let token = Token(
                id: UUID().uuidString, tokenType: "Bearer", accessToken: "stale", refreshToken: "refresh",
                idToken: nil, deviceSecret: nil, scope: nil, issuedAt: Date(), expiresIn: 0,
                context: Token.Context(issuer: server.url, clientID: "c"))
            let credential = try Credential.store(token)
            var request = URLRequest(url: URL(string: "https://api.example.com/me")!)
            await #expect(throws: CredentialError.self) { try await credential.authorize(request: &request) }
            #expect(request.value(forHTTPHeaderField: "Authorization") == nil)
            #expect(request.allHTTPHeaderFields?.keys.contains { $0.lowercased() == "x-injected" } != true)
            #expect(credential.token.accessToken == "stale")
            let stored = try Credential.tokenStorage.token(id: credential.id, prompt: nil, authenticationContext: nil)
            #expect(stored?.accessToken == "stale")
            #expect(stored?.tokenType == "Bearer")
            #expect(try await server.requests().contains { $0.path == "/token" })
        }
    }
}
