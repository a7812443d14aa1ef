import Foundation
import TestSupport
import Testing
import TokenVault

@Suite struct CLITokenTests {
    /// A token response to import, with tags and an ID token.
    func importTokens(_ vault: CLIVault, subject: String, tags: [String]) throws -> String {
        let response = String(decoding: TestTokens.response(subject: subject, roles: ["admin"]), as: UTF8.self)
        let result = try vault.run(
            ["import", "-", "--issuer", "https://issuer.example.com", "--client-id", "cli", "--json"]
                + tags.flatMap { ["--tag", $0] }, input: response)
        try result.expectSuccess()
        return try #require((try result.json() as? [String: Any])?["id"] as? String)
    }

    @Test func importListShowTagDefaultAndRemoveOffline() throws {
        let vault = try CLIVault()
        let first = try importTokens(vault, subject: "jane@example.com", tags: ["service=purchase"])
        let second = try importTokens(vault, subject: "john@example.com", tags: ["service=billing"])
        let listed = try #require(try vault.run(["list", "--json"]).json() as? [[String: Any]])
        #expect(Set(listed.compactMap { $0["id"] as? String }) == [first, second])
        #expect(listed.first { $0["id"] as? String == first }?["default"] as? Bool == true)
        let filtered = try #require(
            try vault.run(["list", "--json", "--where", "service=billing"]).json() as? [[String: Any]])
        #expect(filtered.map { $0["id"] as? String } == [second])
        let byClaim = try #require(
            try vault.run(["list", "--json", "--claim", "sub=jane@example.com"]).json() as? [[String: Any]])
        #expect(byClaim.map { $0["id"] as? String } == [first])
        #expect((try vault.run(["list", "--json", "--claim", "roles=admin"]).json() as? [[String: Any]])?.count == 2)

        let shown = try vault.run(["show", first, "--json"])
        let fields = try #require(try shown.json() as? [String: Any])
        #expect(fields["accessToken"] == nil)
        #expect(!shown.stdout.contains("at-") && !shown.stdout.contains("rt-"))
        let revealed = try #require(try vault.run(["show", "default", "--json", "--reveal"]).json() as? [String: Any])
        #expect((revealed["accessToken"] as? String)?.hasPrefix("at-") == true)

        try vault.run(["tag", second, "team=core", "service="]).expectSuccess()
        let tagged = try #require(try vault.run(["list", "--json", "--where", "team=core"]).json() as? [[String: Any]])
        #expect(tagged.first?["tags"] as? [String: String] == ["team": "core"])
        try vault.run(["default", second]).expectSuccess()
        #expect((try vault.run(["default", "--json"]).json() as? [String: Any])?["default"] as? String == second)
        try vault.run(["rm", second]).expectSuccess()
        #expect(try vault.run(["show", second]).status == 5)
        #expect(try vault.run(["token", "no-such-id"]).status == 5)
        #expect(
            try vault.run(["import", "-", "--issuer", "https://x", "--client-id", "c"], input: "not json").status == 6)
    }
}

/// The CLI against the real server.
@Suite(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
struct CLIServerTests {
    func secretFile(_ vault: CLIVault, _ name: String, _ value: String) throws -> String {
        let url = vault.directory.file(name)
        try writePrivateFile(value, to: url)
        return url.path
    }

    @Test func loginWithEachGrantThenTokenRefreshRevoke() async throws {
        let server = try AuthorizationServer()
        let vault = try CLIVault()
        let issuer = server.url.absoluteString
        let password = try secretFile(vault, "password", "testpass")
        let passwordClient = AuthorizationServer.Client.confidentialPassword
        let login = try vault.run([
            "login", "--issuer", issuer, "--client-id", passwordClient.0, "--client-secret-file",
            try secretFile(vault, "secret", passwordClient.1!), "--grant", "password", "--username", "testuser",
            "--password-file", password, "--tag", "via=password", "--json",
        ])
        try login.expectSuccess()
        #expect(!login.stdout.contains("testpass") && !login.stderr.contains("testpass"))
        let id = try #require((try login.json() as? [String: Any])?["id"] as? String)
        let token = try vault.run(["token"])
        try token.expectSuccess()
        #expect(token.stdout.split(separator: "\n").count == 1)
        try vault.run(["refresh", id]).expectSuccess()
        #expect(try vault.run(["token", id]).stdout != token.stdout)

        let service = AuthorizationServer.Client.service
        try vault.run([
            "login", "--issuer", issuer, "--client-id", service.0, "--client-secret-file",
            try secretFile(vault, "service-secret", service.1!), "--grant", "client-credentials", "--scope", "read",
        ]).expectSuccess()

        // The device grant: the CLI prints the code and polls; the user approves meanwhile.
        let device = try CLIProcess.start(
            ["login", "--issuer", issuer, "--client-id", AuthorizationServer.Client.device.0] + vault.unlock)
        let stderr = device.2.fileHandleForReading
        var prompt = ""
        while !prompt.contains("enter the code ") {
            let chunk = stderr.availableData
            if chunk.isEmpty { break }
            prompt += String(decoding: chunk, as: UTF8.self)
        }
        let userCode = try #require(
            prompt.components(separatedBy: "enter the code ").last?.split(separator: "\n").first)
        try await server.approveDevice(userCode: String(userCode))
        let finished = CLIProcess.finish(device)
        #expect(finished.status == 0, "\(finished.stderr)")
        let deviceID = finished.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        #expect((try vault.run(["list", "--json"]).json() as? [Any])?.count == 3)
        try vault.run(["revoke", id, "--type", "refresh"]).expectSuccess()
        #expect(try vault.run(["show", id]).status == 5)
        #expect((try vault.run(["list", "--json"]).json() as? [Any])?.count == 2)
        server.stop()
        let offline = try vault.run(["refresh", deviceID])
        #expect(offline.status == 6)
        #expect(offline.stderr.hasPrefix("tokenvault: Network error"))
    }

    /// `list --verified` shows only tokens whose ID token the CLI checked when it arrived: one a
    /// refresh from the real server returned, not one imported from a raw response.
    @Test func listVerifiedShowsOnlyTokensWhoseIDTokenWasChecked() async throws {
        let server = try AuthorizationServer()
        let vault = try CLIVault()
        let client = AuthorizationServer.Client.confidentialPassword
        let login = try vault.run([
            "login", "--issuer", server.url.absoluteString, "--client-id", client.0, "--client-secret-file",
            try secretFile(vault, "secret", client.1!), "--grant", "password", "--username",
            AuthorizationServer.username, "--password-file",
            try secretFile(vault, "password", AuthorizationServer.password), "--scope", "openid profile", "--json",
        ])
        try login.expectSuccess()
        let id = try #require((try login.json() as? [String: Any])?["id"] as? String)
        let imported = try CLITokenTests().importTokens(vault, subject: "jane@example.com", tags: [])
        func listed(_ options: [String]) throws -> [[String: Any]] {
            try #require(try vault.run(["list", "--json"] + options).json() as? [[String: Any]])
        }
        // The password grant gives no ID token, the import an unchecked one: nothing is verified yet.
        #expect(try listed(["--verified"]).isEmpty)
        #expect(try listed([]).compactMap { $0["claimsVerified"] as? Bool } == [false, false])
        try vault.run(["refresh", id]).expectSuccess()
        #expect(try listed(["--verified"]).compactMap { $0["id"] as? String } == [id])
        let subject = try #require(try listed(["--verified"]).first?["subject"] as? String)
        #expect(try listed(["--verified", "--claim", "sub=\(subject)"]).compactMap { $0["id"] as? String } == [id])
        #expect(try listed(["--verified", "--claim", "sub=jane@example.com"]).isEmpty)
        #expect(try listed(["--claim", "sub=jane@example.com"]).compactMap { $0["id"] as? String } == [imported])
    }

    /// `import --verify-id-token` checks the ID token with the issuer's keys: a real one is stored
    /// verified, a forged one is refused and nothing is stored.
    @Test func importCanVerifyTheIDTokenAndRefusesAForgery() async throws {
        let server = try AuthorizationServer()
        let vault = try CLIVault()
        let client = AuthorizationServer.Client.confidentialPassword
        let token = try await server.client(client).refresh(try await server.passwordToken())
        let idToken = try #require(token.idToken?.rawValue)
        func response(_ idToken: String) throws -> String {
            let object: [String: Any] = [
                "access_token": token.accessToken, "token_type": "Bearer", "expires_in": 300, "id_token": idToken,
            ]
            return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        }
        let options = [
            "import", "-", "--issuer", server.url.absoluteString, "--client-id", client.0, "--client-secret-file",
            try secretFile(vault, "secret", client.1!), "--verify-id-token", "--json",
        ]
        // The same claims, signed by a key the issuer never published.
        let forger = try TestSigningKey(.rsa)
        let parts = idToken.split(separator: ".")
        let header = try TestSigningKey.part(["alg": "RS256", "kid": forger.keyID, "typ": "JWT"])
        let forged =
            "\(header).\(parts[1])." + TestTokens.base64URL(Data(try forger.sign(Array("\(header).\(parts[1])".utf8))))
        let refused = try vault.run(options, input: try response(forged))
        #expect(refused.status == 6)
        #expect(refused.stderr.contains("ID token"), "\(refused.stderr)")
        #expect(!refused.stderr.contains(String(parts[1])))
        #expect((try vault.run(["list", "--json"]).json() as? [Any])?.isEmpty == true)

        let stored = try vault.run(options, input: try response(idToken))
        try stored.expectSuccess()
        let id = try #require((try stored.json() as? [String: Any])?["id"] as? String)
        let verified = try #require(try vault.run(["list", "--verified", "--json"]).json() as? [[String: Any]])
        #expect(verified.compactMap { $0["id"] as? String } == [id])
    }

    @Test func tenParallelTokenCommandsMakeOneRefresh() async throws {
        let server = try AuthorizationServer(.init(rotateRefreshTokens: true, reuseProtection: true))
        let vault = try CLIVault()
        // An expiring token for the test user, imported as a token response.
        let token = try await server.passwordToken()
        let response: [String: Any] = [
            "access_token": token.accessToken, "token_type": "Bearer", "expires_in": 5,
            "refresh_token": token.refreshToken!,
        ]
        let client = AuthorizationServer.Client.confidentialPassword
        try vault.run(
            [
                "import", "-", "--issuer", server.url.absoluteString, "--client-id", client.0, "--client-secret-file",
                try secretFile(vault, "secret", client.1!),
            ], input: String(decoding: try JSONSerialization.data(withJSONObject: response), as: UTF8.self)
        ).expectSuccess()
        try await server.resetStats()
        let runs = try (0..<10).map { _ in try CLIProcess.start(["token"] + vault.unlock) }
        let results = runs.map(CLIProcess.finish)
        for result in results { #expect(result.status == 0, "\(result.stderr)") }
        #expect(Set(results.map(\.stdout)).count == 1)
        #expect(results.first?.stdout != token.accessToken + "\n")
        #expect(try await server.tokenRequests("refresh_token") == 1)
    }
}
