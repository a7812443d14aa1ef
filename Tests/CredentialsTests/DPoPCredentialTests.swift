import Foundation
import TestSupport
import Testing
import TokenVault

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension CredentialTests {
    /// A DPoP-bound token through the facade, in a real vault file, against the real local server.
    /// Part of the serialized suite: it uses the process-wide `Credential` state.
    @Suite(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
    struct DPoPBinding {
        let directory = TemporaryDirectory()
        let vault: Vault
        let url: URL
        let keyFile: URL

        init() throws {
            (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
            try Credential.use(vault)
        }

        /// A DPoP-bound token through the device flow, approved as the user would.
        static func deviceToken(_ server: AuthorizationServer) async throws -> Token {
            let oauth2 = server.client(
                AuthorizationServer.Client.device, scopes: ["openid", "profile"],
                dpop: DPoPOptions(nonces: DPoPNonceStore()))
            let authorization = try await oauth2.deviceAuthorization()
            return try await oauth2.pollForToken(authorization) { _ in
                try await server.approveDevice(userCode: authorization.userCode)
            }
        }

        /// The status the server's DPoP resource answers a request `credential` authorized.
        static func resourceStatus(_ server: AuthorizationServer, _ credential: Credential) async throws -> Int? {
            var request = URLRequest(url: server.dpopResourceURL, timeoutInterval: 10)
            try await credential.authorize(request: &request)
            return (try await URLSession.shared.data(for: request).1 as? HTTPURLResponse)?.statusCode
        }

        @Test func theKeyIsSealedWithTheTokenAndReadsBackAfterLockUnlockAndReopening() async throws {
            let server = try AuthorizationServer()
            let token = try await Self.deviceToken(server)
            let key = try #require(token.dpopKey)
            let credential = try Credential.store(token)
            #expect(try await Self.resourceStatus(server, credential) == 200)

            // Locked: the kept copy, key included, is unreadable, and nothing is authorized.
            vault.lock()
            #expect(credential.token.dpopKey == nil && credential.token.accessToken.isEmpty)
            var request = URLRequest(url: server.dpopResourceURL)
            await #expect(throws: CredentialError.storage(.locked)) {
                try await credential.authorize(request: &request)
            }
            #expect(request.value(forHTTPHeaderField: "DPoP") == nil)
            try vault.unlock(.keyFile(keyFile))
            #expect(credential.token.dpopKey == key)
            #expect(try await Self.resourceStatus(server, credential) == 200)

            // Another vault instance on the same file, as a new process would open it.
            try Credential.use(Vault.open(at: url, unlock: .keyFile(keyFile)))
            let reopened = try #require(try Credential.with(id: token.id))
            #expect(reopened !== credential)
            #expect(reopened.token.dpopKey == key && reopened.token.tokenType == "DPoP")
            #expect(try await Self.resourceStatus(server, reopened) == 200)

            // The files hold the key sealed: its seed bytes appear nowhere in them.
            let seed = key.withSeed { Array($0) }
            for path in [url.path, url.path + "-wal"] where FileManager.default.fileExists(atPath: path) {
                let file = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
                #expect(!file.indices.dropLast(seed.count).contains { Array(file[$0..<$0 + seed.count]) == seed })
            }
            #expect(try await server.dpopStats()["resource_requests"] as? Int == 3)
        }

        @Test func aRefreshThroughTheFacadeKeepsTheKeyInTheVault() async throws {
            let server = try AuthorizationServer()
            let token = try await Self.deviceToken(server)
            let credential = try Credential.store(token)
            try await credential.refresh()
            #expect(credential.token.accessToken != token.accessToken)
            #expect(credential.token.dpopKey == token.dpopKey && credential.token.tokenType == "DPoP")
            let (_, response) = try await credential.send(URLRequest(url: server.dpopResourceURL))
            #expect(response.statusCode == 200)
            try Credential.use(Vault.open(at: url, unlock: .keyFile(keyFile)))
            #expect(try Credential.with(id: token.id)?.token.dpopKey == token.dpopKey)
            #expect(try await server.tokenRequests("refresh_token") == 1)
        }

        @Test func aStoredDPoPTokenWithoutAKeyIsATypedError() async throws {
            let server = try AuthorizationServer()
            let keyless = try await Self.deviceToken(server).bound(to: nil)
            let credential = try Credential.store(keyless)
            var request = URLRequest(url: server.dpopResourceURL)
            await #expect(throws: CredentialError.oauth2(.dpopKeyMissing)) {
                try await credential.authorize(request: &request)
            }
            #expect(request.value(forHTTPHeaderField: "Authorization") == nil)
            await credential.authorize(&request)
            #expect(request.value(forHTTPHeaderField: "Authorization") == nil)
            await #expect(throws: CredentialError.oauth2(.dpopKeyMissing)) { try await credential.refresh() }
            #expect(try await server.tokenRequests("refresh_token") == 0)
        }

        @Test func aResourceNonceChallengeIsAnsweredOnceThroughTheFacade() async throws {
            let server = try AuthorizationServer()
            let credential = try Credential.store(try await Self.deviceToken(server))
            try await server.setDPoP(requireNonce: true)
            try await server.resetStats()
            let (_, response) = try await credential.send(URLRequest(url: server.dpopResourceURL))
            #expect(response.statusCode == 200)
            let stats = try await server.dpopStats()
            #expect(stats["nonce_challenges"] as? Int == 1 && stats["resource_requests"] as? Int == 2)
            // The nonce is remembered for the next request.
            #expect(try await credential.send(URLRequest(url: server.dpopResourceURL)).1.statusCode == 200)
            #expect(try await server.dpopStats()["nonce_challenges"] as? Int == 1)
        }
    }
}
