import Foundation
import Locking
import TestSupport
import Testing
import TokenVault

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The samples that use `Credential`'s process-wide state: one at a time, and never beside
/// another target's suites that use it.
@Suite(.serialized, .credentialState) struct CredentialSamples {}

extension CredentialSamples {
    /// Our rewrites of the Okta Swift Client SDK's credential samples (storing, the default, lookup,
    /// refresh, sign-out, switching accounts), compiled against TokenVault with only the changes the
    /// porting guide lists, and run against a temporary vault.
    @Suite struct OktaCredentialSamples {
        let directory = TemporaryDirectory()
        let vault: Vault

        init() throws {
            (vault, _, _) = try TestVaults.keyFileVault(in: directory)
            try Credential.use(vault)
        }

        /// Rewrite of the Okta sample for storing a token with defaults, with tags, and with options.
        @Test func storeTokens() throws {
            let plain = try Credential.store(TestTokens.token(subject: "plain"))
            let tagged = try Credential.store(TestTokens.token(subject: "tagged"), tags: ["displayName": "Tagged User"])
            // Access control needs a factor to prove presence with: a key file stands in for biometry.
            let factor = directory.file("factor.key")
            try KeyFile.generate(at: factor)
            try vault.enrollFactor(.keyFile(factor))
            let options = try Credential.store(
                TestTokens.token(subject: "options"), tags: ["displayName": "Options User"],
                security: [
                    .accessibility(.afterFirstUnlock), .accessControl(.biometryAny),
                    .accessGroup("com.example.samples.shared"),
                ])
            #expect(Set(Credential.allIDs) == [plain.id, tagged.id, options.id])
            #expect(tagged.tags["displayName"] == "Tagged User")
        }

        /// Rewrite of the Okta sample that checks for a signed-in user at launch and follows default
        /// changes.
        @Test func defaultCredentialAtLaunch() throws {
            let changes = DefaultChangeRecorder()
            #expect(Credential.default == nil)
            let credential = try Credential.store(TestTokens.token())
            if let signedIn = Credential.default {
                #expect(signedIn.id == credential.id)
            } else {
                Issue.record("the first stored token is not the default")
            }
            Credential.default = nil
            #expect(changes.ids == [credential.id, nil])
            #expect(Credential.allIDs == [credential.id])  // clearing the default keeps the token
        }

        /// Rewrite of the Okta samples that look credentials up by id, tags and ID-token claims.
        @Test func lookUpCredentials() throws {
            let service = try Credential.store(TestTokens.token(subject: "svc"), tags: ["service": "purchase"])
            let jane = try Credential.store(TestTokens.token(subject: "jane.doe@example.com", roles: ["admin"]))
            for tokenID in Credential.allIDs {
                #expect(try Credential.with(id: tokenID) != nil)
            }
            #expect(try Credential.with(id: service.id) === service)
            #expect(try Credential.find(where: { $0.tags["service"] == "purchase" }).first === service)
            #expect(try Credential.find { $0.subject == "jane.doe@example.com" } == [jane])
            let admins = try Credential.find(where: { meta in
                let roles = meta[.roles] as? [String]
                return roles?.contains("admin") ?? false
            })
            #expect(admins == [jane])
            service.tags = ["service": "refund"]
            #expect(try Credential.find(tags: ["service": "refund"]) == [service])
        }

        /// Rewrite of the Okta sample that switches the active account by username.
        @Test func switchAccounts() throws {
            try Credential.store(TestTokens.token(subject: "first"))
            let second = try Credential.store(
                try Token(
                    response: TestTokens.response(subject: "second", email: "second@example.com"),
                    context: TestTokens.context))
            try switchDefaultAccount(toSubject: "second")
            #expect(Credential.default === second)
            #expect(throws: AccountError.credentialNotFound("nobody")) { try switchDefaultAccount(toSubject: "nobody") }
        }

        /// Rewrite of the Okta refresh, authorize and sign-out samples, against the local server.
        @Test(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
        func refreshAuthorizeAndSignOut() async throws {
            let server = try AuthorizationServer()
            let credential = try Credential.store(try await server.passwordToken())
            do {
                try await credential.refresh()
                try await credential.refreshIfNeeded()
                try await credential.refreshIfNeeded(graceInterval: 10)
            } catch {
                Issue.record("refresh failed: \(error)")
            }
            let userInfo = await authorizedUserInfo(
                credential: credential, url: server.url.appendingPathComponent("userinfo/"))
            #expect(userInfo?["preferred_username"] as? String == AuthorizationServer.username)
            await signOutLocally()
            #expect(Credential.default == nil)
            #expect(Credential.allIDs.isEmpty)
        }

        // MARK: The samples' functions

        enum AccountError: Error, Equatable { case credentialNotFound(String) }

        /// Okta's `switchDefaultAccount(to:)`, rewritten.
        func switchDefaultAccount(toSubject subject: String) throws {
            guard let newCredential = try Credential.find(where: { meta in meta.subject == subject }).first else {
                throw AccountError.credentialNotFound(subject)
            }
            Credential.default = newCredential
            _ = newCredential.metadata.subject ?? "unknown user"
        }

        /// Okta's `makeAuthenticatedApiRequest`, rewritten: authorize without `try`, then send.
        func authorizedUserInfo(credential: Credential, url: URL) async -> [String: Any]? {
            do {
                var request = URLRequest(url: url)
                await credential.authorize(&request)
                let (data, _) = try await URLSession.shared.data(for: request)
                return try JSONSerialization.jsonObject(with: data) as? [String: Any]
            } catch {
                return nil
            }
        }

        /// Okta's `signOutLocally()`, rewritten: revoke at the server, else at least remove locally.
        func signOutLocally() async {
            guard let credential = Credential.default else { return }
            do {
                try await credential.revoke()
            } catch {
                try? credential.remove()
            }
        }
    }

}
