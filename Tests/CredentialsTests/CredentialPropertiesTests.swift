import Foundation
import TestSupport
import Testing
import TokenVault

extension CredentialTests {
    /// The properties Okta's `Credential` has: settable `tags`, a kept `userInfo`, and
    /// `automaticRefresh`. Part of the serialized suite: it uses the process-wide `Credential` state.
    @Suite struct OktaProperties {
        let directory = TemporaryDirectory()
        let vault: Vault

        init() throws {
            (vault, _, _) = try TestVaults.keyFileVault(in: directory)
            try Credential.use(vault)
        }

        @Test func settingTagsPersistsThem() throws {
            let credential = try Credential.store(TestTokens.token(), tags: ["team": "red"])
            credential.tags = ["team": "blue", "owner": "ops"]
            #expect(try Credential.tokenStorage.metadata(id: credential.id)?.tags == ["team": "blue", "owner": "ops"])
            #expect(try Credential.find(tags: ["team": "blue"]).map(\.id) == [credential.id])
            #expect(try Credential.find(tags: ["team": "red"]).isEmpty)
        }

        @Test func tagsSetOnARemovedCredentialStayAsTheyWere() throws {
            let credential = try Credential.store(TestTokens.token(), tags: ["team": "red"])
            try credential.remove()
            credential.tags = ["team": "blue"]
            #expect(credential.tags == ["team": "red"])
            #expect(throws: CredentialError.removed(credential.id)) { try credential.setTags(["team": "blue"]) }
        }

        @Test func automaticRefreshStartsAndStopsTheLoop() throws {
            let credential = try Credential.store(TestTokens.token())
            #expect(!credential.automaticRefresh)
            credential.automaticRefresh = true
            #expect(credential.automaticRefresh)
            #expect(credential.isRefreshingAutomatically)
            credential.automaticRefresh = false
            #expect(!credential.automaticRefresh)
            credential.automaticRefresh = true
            try credential.remove()
            #expect(!credential.automaticRefresh)
        }
    }

    /// `userInfo` against the real server.
    @Suite(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
    struct KeptUserInfo {
        let directory = TemporaryDirectory()
        let vault: Vault

        init() throws {
            (vault, _, _) = try TestVaults.keyFileVault(in: directory)
            try Credential.use(vault)
        }

        @Test func theLastAnswerIsKeptUntilTheCredentialIsRemoved() async throws {
            let server = try AuthorizationServer()
            let credential = try Credential.store(try await server.passwordToken())
            #expect(credential.userInfo == nil)
            let fetched = try await credential.userInfo()
            #expect(fetched.preferredUsername == AuthorizationServer.username)
            #expect(credential.userInfo == fetched)
            server.stop()
            await #expect(throws: CredentialError.self) { try await credential.userInfo() }
            #expect(credential.userInfo == fetched)
            try credential.remove()
            #expect(credential.userInfo == nil)
        }
    }
}
