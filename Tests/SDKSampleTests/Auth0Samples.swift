import Foundation
import TestSupport
import Testing
import TokenVault

extension CredentialSamples {
    /// Our rewrites of the Auth0.swift samples for keeping and renewing tokens: the
    /// `CredentialsManager` flow, and the SimpleKeychain alternative. Compiled against TokenVault with
    /// only the changes the porting guide lists, and run against a temporary vault and the local server.
    @Suite(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
    struct Auth0Samples {
        let directory = TemporaryDirectory()
        let vault: Vault

        init() throws {
            (vault, _, _) = try TestVaults.keyFileVault(in: directory)
            try Credential.use(vault)
        }

        /// Rewrite of the Auth0 sample that hands a sign-in's credentials to the manager, checks that
        /// they can be renewed, and reads them back (renewed when expired).
        @Test func credentialsManagerFlow() async throws {
            let server = try AuthorizationServer()
            let credentialsManager = CredentialsManager()
            let signedIn = try await server.passwordToken().expiring(in: 5)
            try credentialsManager.store(credentials: signedIn)
            guard credentialsManager.canRenew() else {
                Issue.record("stored credentials with a refresh token cannot be renewed")
                return
            }
            do {
                let credentials = try await credentialsManager.credentials(minTTL: 60)
                #expect(credentials.accessToken != signedIn.accessToken)  // renewed, as it expired
            } catch {
                Issue.record("credentials failed: \(error)")
            }
        }

        /// Rewrite of the Auth0 sample that keeps the access and refresh tokens in a keychain service
        /// itself, then renews them with the refresh token and keeps the new ones.
        @Test func simpleKeychainFlow() async throws {
            let server = try AuthorizationServer()
            let keychain = SecretStore(vault: vault, service: "Auth0")
            let credentials = try await server.passwordToken()
            guard let refreshToken = credentials.refreshToken else {
                Issue.record("the sign-in gave no refresh token")
                return
            }
            try keychain.set(credentials.accessToken, forKey: "access_token")
            try keychain.set(refreshToken, forKey: "refresh_token")

            let stored = try keychain.string(forKey: "refresh_token")
            let renewed = try await server.client().refresh(credentials.withRefreshToken(stored))
            guard let newRefreshToken = renewed.refreshToken else {
                Issue.record("the renewal gave no refresh token")
                return
            }
            try keychain.set(renewed.accessToken, forKey: "access_token")
            try keychain.set(newRefreshToken, forKey: "refresh_token")
            #expect(try keychain.string(forKey: "access_token") == renewed.accessToken)
            try keychain.deleteAll()  // what the docs advise on first launch after a reinstall
            #expect(try keychain.keys().isEmpty)
        }
    }

}

extension Token {
    /// The same token with the refresh token read back from a keychain.
    fileprivate func withRefreshToken(_ refreshToken: String) -> Token {
        Token(
            id: id, tokenType: tokenType, accessToken: accessToken, refreshToken: refreshToken, idToken: idToken,
            deviceSecret: deviceSecret, scope: scope, issuedAt: issuedAt, expiresIn: expiresIn, context: context)
    }
}
