import Foundation
import Locking
import TestSupport
import Testing
import TokenVault

extension CredentialSamples {
    /// Our rewrites of the Auth0.swift samples for keeping and renewing tokens: the browser sign-in,
    /// the `CredentialsManager` flow, and the SimpleKeychain alternative. Compiled against TokenVault
    /// with only the changes the porting guide lists, and run against a temporary vault and the
    /// local server, with the test as the user's browser.
    @Suite(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
    struct Auth0Samples {
        let directory = TemporaryDirectory()
        let vault: Vault
        let server: AuthorizationServer
        /// The browsers the samples opened.
        let browsers: Locked<[LoopbackBrowser]>
        /// Opens the user's browser at a sign-in page; the test plays the user.
        let openBrowser: @Sendable (URL) -> Void

        init() throws {
            (vault, _, _) = try TestVaults.keyFileVault(in: directory)
            try Credential.use(vault)
            let server = try AuthorizationServer()
            let browsers = Locked<[LoopbackBrowser]>([])
            self.server = server
            self.browsers = browsers
            openBrowser = { url in browsers.withLock { $0.append(server.signIn(at: url)) } }
        }

        /// Rewrite of the Auth0 samples that sign in through the browser and hand the credentials
        /// to the manager, check at launch that they can be renewed, and read them back (renewed
        /// once they have expired).
        @Test func credentialsManagerFlow() async throws {
            let credentialsManager = CredentialsManager()
            let auth0 = OAuth2Client(
                issuer: server.url, clientID: AuthorizationServer.Client.publicPKCE.0,
                scopes: ["openid", "profile", "offline_access"])
            do {
                let credentials = try await auth0.authorizeThroughLoopback { url in openBrowser(url) }
                try credentialsManager.store(credentials: credentials)
            } catch {
                Issue.record("the sign-in failed: \(error)")
            }
            #expect(browsers.value.map(\.result) == [200])  // the browser came back to the app
            #expect(try await server.tokenRequests("authorization_code") == 1)

            guard credentialsManager.canRenew() else {
                Issue.record("stored credentials with a refresh token cannot be renewed")
                return
            }
            let signedIn = try #require(try await readCredentials(credentialsManager))
            #expect(signedIn.idToken?.preferredUsername == AuthorizationServer.username)
            #expect(try await server.tokenRequests("refresh_token") == 0)  // still valid: not renewed

            // The same call once the token has expired: the manager renews and keeps the new one.
            try credentialsManager.store(credentials: signedIn.expiring(in: -60))
            let renewed = try #require(try await readCredentials(credentialsManager))
            let replaced = renewed.accessToken != signedIn.accessToken
            #expect(replaced)
            #expect(try await server.tokenRequests("refresh_token") == 1)
            let kept = try await credentialsManager.credentials().accessToken == renewed.accessToken
            #expect(kept)
        }

        /// Rewrite of the Auth0 samples that keep the access and refresh tokens of a browser sign-in
        /// in a keychain service themselves, then renew them from the stored refresh token and keep
        /// the new ones.
        @Test func simpleKeychainFlow() async throws {
            let auth0 = OAuth2Client(
                issuer: server.url, clientID: AuthorizationServer.Client.publicPKCE.0,
                scopes: ["openid", "profile", "offline_access"])
            let keychain = SecretStore(vault: vault, service: "Auth0")
            do {
                let credentials = try await auth0.authorizeThroughLoopback { url in openBrowser(url) }
                guard let refreshToken = credentials.refreshToken else {
                    Issue.record("the sign-in gave no refresh token")
                    return
                }
                do {
                    try keychain.set(credentials.accessToken, forKey: "access_token")
                    try keychain.set(refreshToken, forKey: "refresh_token")
                } catch {
                    Issue.record("the tokens could not be stored: \(error)")
                }
            } catch {
                Issue.record("the sign-in failed: \(error)")
            }
            #expect(browsers.value.map(\.result) == [200])  // the browser came back to the app
            #expect(try await server.tokenRequests("authorization_code") == 1)
            let signedIn = try keychain.string(forKey: "access_token")

            await renew(with: auth0)

            let renewedKeychain = SecretStore(vault: vault, service: "Auth0")
            let replaced = try renewedKeychain.string(forKey: "access_token") != signedIn
            #expect(replaced)
            #expect(try await server.tokenRequests("refresh_token") == 1)
            try keychain.deleteAll()  // what the docs advise on first launch after a reinstall
            #expect(try keychain.keys().isEmpty)
        }

        // MARK: The samples' app

        /// The renewal sample: a new keychain instance for the same service, its refresh token in a
        /// token set of the sign-in's client, renewed, and the new tokens stored.
        func renew(with auth0: OAuth2Client) async {
            let keychain = SecretStore(vault: vault, service: "Auth0")
            do {
                let refreshToken = try keychain.string(forKey: "refresh_token")
                let stored = Token(
                    id: UUID().uuidString, tokenType: "Bearer",
                    accessToken: try keychain.string(forKey: "access_token"),
                    refreshToken: refreshToken, idToken: nil, deviceSecret: nil, scope: nil, issuedAt: Date(),
                    expiresIn: 0, context: Token.Context(issuer: auth0.issuer, clientID: auth0.clientID))
                let credentials = try await auth0.refresh(stored)
                guard let refreshToken = credentials.refreshToken else {
                    Issue.record("the renewal gave no refresh token")
                    return
                }
                do {
                    try keychain.set(credentials.accessToken, forKey: "access_token")
                    try keychain.set(refreshToken, forKey: "refresh_token")
                } catch {
                    Issue.record("the new tokens could not be stored: \(error)")
                }
            } catch {
                Issue.record("the renewal failed: \(error)")
            }
        }

        /// The sample that reads the credentials: `nil` where the app would show the sign-in page.
        func readCredentials(_ credentialsManager: CredentialsManager) async throws -> Token? {
            do {
                let credentials = try await credentialsManager.credentials()
                return credentials  // valid: the app reads `accessToken`, `idToken`
            } catch {
                Issue.record("credentials failed: \(error)")
                return nil
            }
        }
    }

}
