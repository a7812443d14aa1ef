import Foundation
import TestSupport
import Testing
import TokenVault

extension CredentialTests {
    /// Two real processes write one token: neither brings back a value the other replaced. Part
    /// of the serialized suite: it uses the process-wide `Credential` state.
    @Suite(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
    struct LostUpdates {
        let directory = TemporaryDirectory()
        let vault: Vault
        let keyFile: URL
        let vaultURL: URL

        init() throws {
            (vault, vaultURL, keyFile) = try TestVaults.keyFileVault(in: directory)
            try Credential.use(vault)
        }

        /// Stores `signedIn` with a device secret added (the password grant gives none), tagged as
        /// this process's.
        static func storeWithDeviceSecret(_ signedIn: Token) throws -> Credential {
            try Credential.store(
                Token(
                    id: signedIn.id, tokenType: signedIn.tokenType, accessToken: signedIn.accessToken,
                    refreshToken: signedIn.refreshToken, idToken: signedIn.idToken,
                    deviceSecret: "device-secret-\(UUID().uuidString)", scope: signedIn.scope,
                    issuedAt: signedIn.issuedAt, expiresIn: signedIn.expiresIn, context: signedIn.context),
                tags: ["owner": "parent"])
        }

        func stored(_ id: String) throws -> StoredToken {
            try #require(try Credential.tokenStorage.storedToken(id: id, prompt: nil, authenticationContext: nil))
        }

        /// Runs the worker's refresh of `id` in another process and returns the access token it printed.
        func refreshInAnotherProcess(_ id: String) throws -> String {
            let (status, output) = try WorkerProcess.run(["refresh", vaultURL.path, keyFile.path, id, "1000000"])
            #expect(status == 0, "\(output)")
            return String(output.split(separator: "\n").first ?? "")
        }

        /// This process holds the token as it was; another process refreshes it (the server rotates
        /// the refresh token and would revoke the whole family if the old one were replayed); then
        /// this process revokes one kind. The stored token must be the other process's, minus that
        /// kind, so it still refreshes.
        @Test(arguments: [Token.RevokeType.accessToken, .deviceSecret])
        func revokingOneKindKeepsWhatAnotherProcessStored(type: Token.RevokeType) async throws {
            let server = try AuthorizationServer(.init(rotateRefreshTokens: true, reuseProtection: true))
            let signedIn = try await server.passwordToken()
            let credential = try Self.storeWithDeviceSecret(signedIn)
            let stale = credential.token

            let refreshedAccess = try refreshInAnotherProcess(credential.id)
            let refreshed = try stored(credential.id)
            #expect(refreshed.token.accessToken == refreshedAccess)
            #expect(refreshed.token.refreshToken != stale.refreshToken)

            try await credential.revoke(type: type)

            let after = try stored(credential.id)
            #expect(after.token.refreshToken == refreshed.token.refreshToken, "the rotated refresh token came back")
            #expect(after.token.accessToken == refreshedAccess)
            #expect(after.metadata.tags == ["owner": "parent"])
            switch type {
            case .accessToken:
                #expect(after.token.expiresAt <= Date())
                #expect(after.token.deviceSecret == refreshed.token.deviceSecret)
                // The access token revoked at the server is the stored one, not this process's old copy.
                #expect(try await !server.client().introspect(refreshed.token, type: .accessToken).active)
            default:
                #expect(after.token.deviceSecret == nil)
                #expect(after.token.expiresAt == refreshed.token.expiresAt)
            }
            #expect(credential.token == after.token)
            if type == .deviceSecret {
                // The stored grant is alive: the stale refresh token would have revoked the family.
                // (This server also ends the refresh token of a revoked access token.)
                _ = try await server.client().refresh(after.token)
            }
        }

        /// Another process retags the token while this one's revoke waits for the server: the
        /// revoke's write conflicts, so it reads the token again and retries, keeping the new tags
        /// and sending no second request for the value it already revoked.
        @Test func aRevokeThatLosesTheRaceRetriesWithoutUndoingTheOtherWrite() async throws {
            let server = try AuthorizationServer()
            let signedIn = try await server.passwordToken()
            let credential = try Self.storeWithDeviceSecret(signedIn)
            try await server.armFault("hold", path: "/revoke_token/", seconds: 60)
            let revoking = Task { try await credential.revoke(type: .deviceSecret) }
            #expect(try await server.awaitHeld() == 1, "the revocation never reached the server")

            let (status, output) = try WorkerProcess.run(["tag", vaultURL.path, keyFile.path, credential.id, "0"])
            #expect(status == 0, "\(output)")
            try await server.releaseHeld()
            try await revoking.value

            let after = try stored(credential.id)
            #expect(after.metadata.tags == ["owner": "parent", "note": "set by the worker"])
            #expect(after.token.deviceSecret == nil)
            #expect(after.token.refreshToken == signedIn.refreshToken)
            #expect(credential.tags == after.metadata.tags)
            #expect(try await server.requests(to: "/revoke_token/") == 1)
        }

        /// Revoking everything revokes what is stored now, not this process's old copy, so no live
        /// grant is left behind when the record goes.
        @Test func revokingEverythingRevokesTheTokenAnotherProcessStored() async throws {
            let server = try AuthorizationServer(.init(rotateRefreshTokens: true, reuseProtection: false))
            let credential = try Credential.store(try await server.passwordToken())
            _ = try refreshInAnotherProcess(credential.id)
            let refreshed = try stored(credential.id)

            try await credential.revoke(type: .all)

            #expect(credential.isRemoved)
            #expect(try Credential.tokenStorage.storedMetadata(id: credential.id) == nil)
            await #expect(throws: OAuth2Error.self) { try await server.client().refresh(refreshed.token) }
            #expect(try await !server.client().introspect(refreshed.token, type: .accessToken).active)
        }

        /// The worker's refresh outlives its lease (0 s): the server has not answered it yet when this
        /// process takes the lease, refreshes and changes the tags. When the worker's answer arrives,
        /// it must be merged onto what is stored now — its newer access token wins, the tags stay —
        /// instead of written over it.
        @Test func aRefreshThatOutlivedItsLeaseMergesInsteadOfOverwriting() async throws {
            // Without rotation both refreshes succeed for real, so each gives its own access token.
            let server = try AuthorizationServer(.init(rotateRefreshTokens: false, reuseProtection: false))
            let credential = try Credential.store(try await server.passwordToken(), tags: ["owner": "parent"])
            try await server.armFault("hold", seconds: 60)
            let worker = try WorkerProcess.start(["force-refresh", vaultURL.path, keyFile.path, credential.id, "0"])
            #expect(try await server.awaitHeld() == 1, "the worker's refresh never reached the server")

            try await credential.refresh()
            let mine = credential.token
            let tags = ["owner": "parent", "note": "set while the worker waited"]
            try credential.setTags(tags)
            try await server.releaseHeld()
            let (status, output) = WorkerProcess.finish(worker)
            #expect(status == 0, "\(output)")
            let workerAccess = String(output.split(separator: "\n").first ?? "")

            let after = try stored(credential.id)
            #expect(after.token.accessToken == workerAccess)  // the newest answer wins
            #expect(after.token.accessToken != mine.accessToken)
            #expect(after.metadata.tags == tags, "the refresh wrote over the tags set meanwhile")
            #expect(after.metadata.subject == mine.idToken?.subject)
            #expect(try await server.tokenRequests("refresh_token") == 2)
            _ = try await server.client().refresh(after.token)
        }
    }
}
