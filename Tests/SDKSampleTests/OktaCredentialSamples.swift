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
    /// Our rewrites of the Okta Swift Client SDK's credential samples (storing, the default and its
    /// notification, lookup, refresh, authorizing requests, sign-out, switching accounts), compiled
    /// against TokenVault with only the changes the porting guide lists, and run against a
    /// temporary vault and the local server.
    @Suite struct OktaCredentialSamples {
        let directory = TemporaryDirectory()
        let vault: Vault
        /// The screens the samples' app showed, in order.
        let screens = Locked<[String]>([])

        init() throws {
            (vault, _, _) = try TestVaults.keyFileVault(in: directory)
            try Credential.use(vault)
        }

        /// Rewrite of the Okta samples for storing a token with defaults, with tags, and with options.
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

        /// Rewrite of the Okta samples that check for a signed-in user at launch, listen to
        /// `.defaultCredentialChanged` with the sample's own observer, and switch the default user.
        @Test func defaultCredentialAtLaunch() throws {
            let received = Locked<[String?]>([])
            let observer = NotificationCenter.default.addObserver(
                forName: .defaultCredentialChanged, object: nil, queue: nil
            ) { notification in
                if let credential = notification.object as? Credential {
                    print("The default credential is now \(credential.id)")
                    received.withLock { $0.append(credential.id) }  // where the app would update its UI
                } else {
                    print("Signed out: there is no default credential any more")
                    received.withLock { $0.append(nil) }
                }
            }
            defer { NotificationCenter.default.removeObserver(observer) }

            launch()  // nothing stored yet
            let first = try Credential.store(TestTokens.token(subject: "first"))
            launch()  // the first token stored became the default
            let someNewUser = try Credential.store(TestTokens.token(subject: "second"))
            Credential.default = someNewUser
            Credential.default = nil

            #expect(received.value == [first.id, someNewUser.id, nil])
            #expect(screens.value == ["sign-in", "profile \(first.id)"])
            #expect(Set(Credential.allIDs) == [first.id, someNewUser.id])  // clearing the default keeps tokens
        }

        /// Rewrite of the Okta samples that look credentials up by id, tags and ID-token claims.
        @Test func lookUpCredentials() throws {
            let newToken = TestTokens.token(subject: "svc")
            let service = try Credential.store(newToken, tags: ["service": "purchase"])
            let jane = try Credential.store(TestTokens.token(subject: "jane.doe@example.com", roles: ["admin"]))
            for tokenId in Credential.allIDs {
                try showUser(with: tokenId)
            }
            #expect(Set(screens.value) == ["profile \(service.id)", "profile \(jane.id)"])
            #expect(try Credential.with(id: service.id) === service)

            if let credential = try Credential.find(where: { $0.tags["service"] == "purchase" }).first {
                #expect(credential === service)
            } else {
                Issue.record("the tagged credential was not found")
            }
            let matchingCredentials = try Credential.find(where: { meta in
                meta.tags["service"] == "purchase"
            })
            #expect(matchingCredentials == [service])
            let userCredentials = try Credential.find { metadata in
                metadata.subject == "jane.doe@example.com"
            }
            #expect(userCredentials == [jane])
            let admins = try Credential.find(where: { meta in
                let roles = meta[.roles] as? [String]
                return roles?.contains("admin") ?? false
            })
            #expect(admins == [jane])
            service.tags = ["service": "refund"]
            #expect(try Credential.find(tags: ["service": "refund"]) == [service])
        }

        /// Rewrite of the Okta sample that switches the active account by the user's
        /// `preferred_username`.
        @Test func switchAccounts() throws {
            try Credential.store(TestTokens.token(subject: "first", preferredUsername: "first@example.com"))
            let second = try Credential.store(
                TestTokens.token(subject: "second", preferredUsername: "second@example.com"))
            try switchDefaultAccount(to: "second@example.com")
            #expect(Credential.default === second)
            #expect(Credential.default?.metadata.preferredUsername == "second@example.com")
            #expect(throws: AccountError.credentialNotFound("nobody@example.com")) {
                try switchDefaultAccount(to: "nobody@example.com")
            }
            #expect(Credential.default === second)
        }

        /// Rewrite of the Okta refresh samples (now, if needed with the default grace interval, and
        /// with an explicit one), against the local server.
        @Test(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
        func refreshTokens() async throws {
            let server = try AuthorizationServer()
            let credential = try Credential.store(try await server.passwordToken())
            let signedIn = try credential.currentToken()
            do {
                try await credential.refresh()
            } catch {
                Issue.record("refresh failed: \(error)")
            }
            do {
                try await credential.refreshIfNeeded()
                try await credential.refreshIfNeeded(graceInterval: 10)
            } catch {
                Issue.record("refreshIfNeeded failed: \(error)")
            }
            // One refresh: the token had hours left, so neither refreshIfNeeded sent one.
            #expect(try await server.tokenRequests("refresh_token") == 1)
            let replaced = try credential.currentToken().accessToken != signedIn.accessToken
            #expect(replaced)
        }

        /// Rewrite of Okta's `makeAuthenticatedApiRequest(credential:url:data:)`: a JSON body,
        /// authorized without `try`, posted, and the answer's JSON returned as `Any`; when the
        /// request fails, the sign-in screen and the error.
        @Test(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
        func authenticatedApiRequest() async throws {
            let server = try AuthorizationServer()
            let credential = try Credential.store(try await server.passwordToken())
            let userinfo = server.url.appendingPathComponent("userinfo/")
            let answer = await makeAuthenticatedApiRequest(
                credential: credential, url: userinfo, data: ["note": "sent by the sample"])
            #expect((answer as? [String: Any])?["preferred_username"] as? String == AuthorizationServer.username)
            #expect(try await server.requests(to: "/userinfo/") == 1)
            #expect(screens.value.isEmpty)

            server.stop()
            let failure = await makeAuthenticatedApiRequest(credential: credential, url: userinfo, data: [:])
            #expect(failure is any Error)
            #expect(screens.value == ["sign-in"])
        }

        /// Rewrite of the Okta class reference's "Request authorization" sample: a POST with a
        /// body, authorized with `authorize(request:)` (refreshing the expired token first), then
        /// sent to the server's userinfo endpoint, which answers only a valid Bearer token.
        @Test(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
        func requestAuthorizationWithABearerToken() async throws {
            let server = try AuthorizationServer()
            let credential = try Credential.store(try await server.passwordToken().expiring(in: -60))
            let expired = try credential.currentToken()

            let (sent, data, response) = try await sendAuthorizedPost(
                credential: credential, apiUrl: server.url.appendingPathComponent("userinfo/"))

            let token = try credential.currentToken()
            let refreshed = token.accessToken != expired.accessToken
            #expect(refreshed)
            #expect(try await server.tokenRequests("refresh_token") == 1)
            let headerCarriesToken = sent.value(forHTTPHeaderField: "Authorization") == "Bearer \(token.accessToken)"
            #expect(headerCarriesToken, "the Authorization header carries the refreshed access token")
            #expect(sent.httpMethod == "POST" && sent.httpBody != nil)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let claims = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            #expect(claims?["preferred_username"] as? String == AuthorizationServer.username)
            #expect(try await server.requests(to: "/userinfo/") == 1)
        }

        /// The same sample with a DPoP-bound token: the server's DPoP resource accepts the request
        /// only with a proof of the token's key made for this method and URL, and echoes the method.
        @Test(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
        func requestAuthorizationWithADPoPBoundToken() async throws {
            let server = try AuthorizationServer()
            let oauth2 = server.client(dpop: DPoPOptions(nonces: DPoPNonceStore()))
            let token = try await oauth2.password(
                username: AuthorizationServer.username, password: AuthorizationServer.password)
            let credential = try Credential.store(token)

            let (sent, data, response) = try await sendAuthorizedPost(
                credential: credential, apiUrl: server.dpopResourceURL)

            let headerCarriesToken = sent.value(forHTTPHeaderField: "Authorization") == "DPoP \(token.accessToken)"
            #expect(headerCarriesToken, "the Authorization header carries the DPoP-bound access token")
            #expect(sent.value(forHTTPHeaderField: "DPoP") != nil)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let answer = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            #expect(answer?["method"] as? String == "POST")
            #expect(answer?["username"] as? String == AuthorizationServer.username)
            #expect(try await server.dpopStats()["proofs_accepted"] as? Int == 2)  // the grant's and this request's
        }

        /// Rewrite of Okta's `signOutLocally()`: revoked at the server when it answers, else at
        /// least removed locally.
        @Test(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
        func signOut() async throws {
            let server = try AuthorizationServer()
            let first = try Credential.store(try await server.passwordToken())
            await signOutLocally()
            #expect(first.isRemoved)
            #expect(try await server.requests(to: "/revoke_token/") > 0)

            let second = try Credential.store(try await server.passwordToken())
            server.stop()  // the revocation fails
            await signOutLocally()
            #expect(second.isRemoved)
            #expect(Credential.default == nil)
            #expect(Credential.allIDs.isEmpty)
        }

        // MARK: The samples' functions

        /// What the samples' app shows at launch.
        func launch() {
            if let credential = Credential.default {
                showUserProfile(credential)
            } else {
                showLoginScreen()
            }
        }

        func showUserProfile(_ credential: Credential) {
            screens.withLock { $0.append("profile \(credential.id)") }
        }

        func showLoginScreen() {
            screens.withLock { $0.append("sign-in") }
        }

        /// Okta's `showUser(with:)`.
        func showUser(with tokenId: String) throws {
            if let credential = try Credential.with(id: tokenId) {
                showUserProfile(credential)
            }
        }

        enum AccountError: Error, Equatable { case credentialNotFound(String) }

        /// Okta's `switchDefaultAccount(to:)`.
        func switchDefaultAccount(to userEmail: String) throws {
            guard
                let newCredential = try Credential.find(where: { meta in
                    meta.preferredUsername == userEmail
                }).first
            else {
                throw AccountError.credentialNotFound(userEmail)
            }
            Credential.default = newCredential
            print("The active user is now \(newCredential.metadata.preferredUsername ?? "an unnamed user")")
        }

        /// Okta's `makeAuthenticatedApiRequest(credential:url:data:)`.
        func makeAuthenticatedApiRequest(credential: Credential, url: URL, data: [String: Any]) async -> Any {
            do {
                var request = URLRequest(url: url)
                request.httpMethod = "POST"  // URLSession refuses a GET with a body
                request.httpBody = try? JSONSerialization.data(withJSONObject: data, options: [])
                await credential.authorize(&request)
                let (data, _) = try await URLSession.shared.data(for: request)
                return try JSONSerialization.jsonObject(with: data)
            } catch {
                print("The API request failed; the user may have to sign in again: \(error)")
                showLoginScreen()
                return error
            }
        }

        /// Okta's "Request authorization" sample, with the request and the answer returned.
        func sendAuthorizedPost(credential: Credential, apiUrl: URL) async throws -> (URLRequest, Data, URLResponse) {
            let bodyData = try JSONSerialization.data(withJSONObject: ["note": "sent by the sample"])
            var myRequest = URLRequest(url: apiUrl)
            myRequest.httpMethod = "POST"
            myRequest.httpBody = bodyData
            try await credential.authorize(request: &myRequest)
            let (data, response) = try await URLSession.shared.data(for: myRequest)
            return (myRequest, data, response)
        }

        /// Okta's `signOutLocally()`.
        func signOutLocally() async {
            guard let credential = Credential.default else { return }
            do {
                try await credential.revoke()
            } catch {
                do {
                    try credential.remove()
                } catch {
                    print("The token could not be removed either: \(error)")
                }
            }
        }
    }

}
