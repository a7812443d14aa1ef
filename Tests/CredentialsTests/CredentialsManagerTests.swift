import Foundation
import TestSupport
import Testing
import TokenVault

extension CredentialTests {
    /// `CredentialsManager` without a server: replacing, the default, security options and the
    /// authentication context, the user, and the errors an app tells apart. Part of the serialized suite: it uses the process-wide
    /// `Credential` state.
    @Suite struct ManagerStorage {
        let directory = TemporaryDirectory()
        let vault: Vault

        init() throws {
            (vault, _, _) = try TestVaults.keyFileVault(in: directory)
            try Credential.use(vault)
        }

        func token(refreshToken: String? = "rt-manager", expiresIn: TimeInterval = 3600, client: String = "test-client")
            -> Token
        {
            Token(
                id: UUID().uuidString, tokenType: "Bearer", accessToken: "at-\(UUID().uuidString)",
                refreshToken: refreshToken, idToken: nil, deviceSecret: nil, scope: ["openid"], issuedAt: Date(),
                expiresIn: expiresIn,
                context: Token.Context(issuer: TestTokens.issuer, clientID: client, scopes: ["openid"]))
        }

        @Test func aStoreReplacesTheManagersTokenInPlaceAndKeepsTheDefault() async throws {
            let first = CredentialsManager(name: "first")
            let second = CredentialsManager(name: "second")
            try first.store(credentials: token())
            let defaultID = try #require(Credential.default?.id)
            try second.store(credentials: token())
            let replacement = token()
            try first.store(credentials: replacement)
            try first.store(credentials: replacement)  // the same token again is no error
            #expect(Credential.allIDs.count == 2)
            #expect(Credential.default?.id == defaultID)
            #expect(try await first.credentials().accessToken == replacement.accessToken)
            #expect(try await first.credentials().id == defaultID)
            try second.store(credentials: token())
            #expect(Credential.default?.id == defaultID)
            #expect(Credential.allIDs.count == 2)
        }

        /// Storing credentials says who is signed in now: when the app cleared the default, a
        /// replacement makes the manager's credentials the default again, as a first store would,
        /// and announces it; a default the app gave another credential is left alone.
        @Test func aReplacementAfterTheDefaultWasClearedBecomesTheDefaultAsAFirstStoreWould() throws {
            let recorder = DefaultChangeRecorder()
            let manager = CredentialsManager(name: "signed-in")
            try manager.store(credentials: token())
            let id = try #require(Credential.default?.id)
            Credential.default = nil
            #expect(Credential.default == nil)

            let replacement = token()
            try manager.store(credentials: replacement)
            #expect(Credential.default?.id == id)  // the same record, replaced in place
            #expect(try Credential.default?.currentToken().accessToken == replacement.accessToken)
            #expect(Credential.allIDs == [id])
            #expect(recorder.ids == [id, nil, id])

            let other = CredentialsManager(name: "other")
            try other.store(credentials: token())
            let otherID = try #require(Set(Credential.allIDs).subtracting([id]).first)
            #expect(Credential.default?.id == id)  // a first store does not take the default either
            Credential.default = try Credential.with(id: otherID)
            try manager.store(credentials: token())
            #expect(Credential.default?.id == otherID)
            #expect(recorder.ids == [id, nil, id, otherID])
        }

        /// Credentials stored behind access control (the enrolled key-file factor standing in for
        /// biometry) are given to a manager whose context proves the factor, and refused with
        /// `interactionRequired`, before anything is sent, to one without a context. Each manager
        /// reads a record no credential of this process has loaded (as after a new launch): an
        /// instance already loaded is shared by the whole process (see `Credential.with(id:)`).
        @Test func accessControlledCredentialsNeedTheManagersAuthenticationContext() async throws {
            let factor = directory.file("factor.key")
            try KeyFile.generate(at: factor)
            try vault.enrollFactor(.keyFile(factor))
            let security: [Credential.Security] = [.accessibility(.afterFirstUnlock), .accessControl(.biometryAny)]
            func manager(_ keyFile: URL?) -> CredentialsManager {
                CredentialsManager(
                    name: "guarded", security: security,
                    authenticationContext: keyFile.map { KeyFileAuthenticationContext(keyFile: $0) })
            }
            let stored = token()
            try manager(nil).store(credentials: stored)  // storing needs no proof
            #expect(try vault.allTokenRecordMetadata().map(\.policy.accessControl) == [.biometryAny])

            try Credential.use(vault)
            let withoutProof = manager(nil)
            await #expect(throws: CredentialsManagerError.interactionRequired) { try await withoutProof.credentials() }
            await #expect(throws: CredentialsManagerError.interactionRequired) { try await withoutProof.renew() }
            await #expect(throws: CredentialsManagerError.interactionRequired) {
                try await withoutProof.apiCredentials(forAudience: "https://api.example.com")
            }
            await #expect(throws: CredentialsManagerError.interactionRequired) { try await withoutProof.revoke() }
            #expect(throws: CredentialsManagerError.interactionRequired) {
                try withoutProof.store(credentials: token())
            }
            #expect(!withoutProof.hasValid() && !withoutProof.canRenew() && withoutProof.user == nil)

            let wrong = directory.file("wrong.key")
            try KeyFile.generate(at: wrong)
            await #expect(throws: CredentialsManagerError.storage(.storage(.invalidCredentials))) {
                try await manager(wrong).credentials()
            }

            try Credential.use(vault)
            let withProof = manager(factor)
            #expect(try await withProof.credentials() == stored)
            #expect(withProof.hasValid(minTTL: 60) && withProof.canRenew())
            let replacement = token()
            try withProof.store(credentials: replacement)
            #expect(try await withProof.credentials().accessToken == replacement.accessToken)
            // Replaced in place, the record keeps its access control.
            #expect(try vault.allTokenRecordMetadata().map(\.policy.accessControl) == [.biometryAny])
            try Credential.use(vault)
            await #expect(throws: CredentialsManagerError.interactionRequired) { try await manager(nil).credentials() }
        }

        @Test func aStoreRefusesAnotherClientsOrAnotherProtectionsTokenAndKeepsTheOld() async throws {
            let manager = CredentialsManager(name: "guarded")
            let original = token()
            try manager.store(credentials: original)
            #expect(throws: CredentialsManagerError.differentClient) {
                try manager.store(credentials: token(client: "another-client"))
            }
            let stricter = CredentialsManager(name: "guarded", security: [.accessibility(.whenUnlocked)])
            #expect(throws: CredentialsManagerError.securityMismatch) { try stricter.store(credentials: token()) }
            #expect(try await manager.credentials().accessToken == original.accessToken)
            #expect(manager.clear())
            try stricter.store(credentials: token())
            #expect(stricter.hasValid())
        }

        @Test func aUserFromADecodedIDTokenIsMarkedUnverified() throws {
            let manager = CredentialsManager(name: "user")
            #expect(manager.user == nil)
            try manager.store(credentials: TestTokens.token(subject: "unverified-subject"))
            let user = try #require(manager.user)
            #expect(user.subject == "unverified-subject")
            #expect(user.name == "Jane Doe")
            #expect(!user.isVerified)
        }

        @Test func eachFailureHasItsOwnCase() async throws {
            let manager = CredentialsManager(name: "errors")
            await #expect(throws: CredentialsManagerError.noCredentials) { try await manager.credentials() }
            await #expect(throws: CredentialsManagerError.noCredentials) { try await manager.renew() }
            await #expect(throws: CredentialsManagerError.noCredentials) {
                try await manager.apiCredentials(forAudience: "https://api.example.com")
            }
            try await manager.revoke()  // nothing stored: nothing to do

            try manager.store(credentials: token(refreshToken: nil, expiresIn: -10))
            await #expect(throws: CredentialsManagerError.expired) { try await manager.credentials() }
            await #expect(throws: CredentialsManagerError.noRefreshToken) { try await manager.renew() }
            await #expect(throws: CredentialsManagerError.noRefreshToken) {
                try await manager.apiCredentials(forAudience: "https://api.example.com")
            }

            vault.lock()
            await #expect(throws: CredentialsManagerError.locked) { try await manager.credentials() }
            await #expect(throws: CredentialsManagerError.locked) { try await manager.renew() }
            #expect(throws: CredentialsManagerError.locked) { try manager.store(credentials: token()) }
        }

        @Test func apiCredentialsNeverDescribeTheirToken() {
            let secret = "at-api-\(UUID().uuidString)"
            let credentials = APICredentials(
                audience: "https://api.example.com", accessToken: secret, tokenType: "Bearer",
                expiresAt: Date(timeIntervalSince1970: 1_700_000_000), scope: ["read"])
            #expect(!credentials.description.contains(secret))
            #expect(!String(reflecting: credentials).contains(secret))
            #expect(credentials.description.contains("https://api.example.com"))
        }
    }

    /// `CredentialsManager` against the real server: renewal with parameters (on the wire, through
    /// a recording `HTTPClient`), the verified user, API credentials from a server with and without
    /// audience support, revocation. The recorders are the process-wide `Credential.httpClient`,
    /// put back after each test.
    @Suite(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
    struct ManagerWithServer {
        let directory = TemporaryDirectory()
        let vault: Vault

        init() throws {
            (vault, _, _) = try TestVaults.keyFileVault(in: directory)
            try Credential.use(vault)
        }

        @Test func renewSendsOneRequestAndGivesAVerifiedUser() async throws {
            let server = try AuthorizationServer()
            let manager = CredentialsManager(name: "renew")
            let signedIn = try await server.passwordToken()
            try manager.store(credentials: signedIn)
            #expect(manager.user == nil)  // the password grant gives no ID token
            try await server.resetStats()
            let renewed = try await manager.renew(parameters: ["resource_hint": "tokenvault-tests"])
            #expect(try await server.tokenRequests("refresh_token") == 1)
            #expect(renewed.accessToken != signedIn.accessToken)
            #expect(try await manager.credentials() == renewed)
            let user = try #require(manager.user)
            #expect(user.subject == renewed.idToken?.subject)
            #expect(user.isVerified)  // read back from the vault, which seals the mark with the token
        }

        @Test func aUserFromAnIDTokenTheServerJustSentIsVerified() async throws {
            let server = try AuthorizationServer()
            let vaultStorage = Credential.tokenStorage
            Credential.tokenStorage = InMemoryTokenStorage()
            defer { Credential.tokenStorage = vaultStorage }
            let manager = CredentialsManager(name: "verified")
            try manager.store(credentials: try await server.passwordToken())
            try await manager.renew()
            let user = try #require(manager.user)
            #expect(user.isVerified)
            #expect(user.subject != nil)
        }

        @Test func aReservedParameterIsRefusedBeforeAnythingIsSent() async throws {
            let server = try AuthorizationServer()
            let manager = CredentialsManager(name: "reserved")
            try manager.store(credentials: try await server.passwordToken())
            try await server.resetStats()
            await #expect(throws: CredentialsManagerError.renewFailed(.reservedParameter("refresh_token"))) {
                try await manager.renew(parameters: ["refresh_token": "chosen-by-caller"])
            }
            #expect(try await server.tokenRequests("refresh_token") == 0)
        }

        /// The form fields of a request a recorder kept, as sent.
        static func tokenRequestForms(_ recorder: RecordingHTTPClient) -> [[String: String]] {
            recorder.requests.filter { $0.method == "POST" && $0.path == "/token/" }.map(\.form)
        }

        @Test func renewSendsItsParametersOnTheWire() async throws {
            let server = try AuthorizationServer()
            let manager = CredentialsManager(name: "renew-parameters")
            try manager.store(credentials: try await server.passwordToken())
            let recorder = RecordingHTTPClient(
                recording: server.url, formFields: ["grant_type", "resource_hint", "scope", "audience"])
            Credential.httpClient = recorder
            defer { Credential.httpClient = URLSessionHTTPClient() }
            try await server.resetStats()

            let renewed = try await manager.renew(parameters: [
                "resource_hint": "tokenvault-tests", "scope": "openid profile read",
            ])
            #expect(
                Self.tokenRequestForms(recorder) == [
                    [
                        "grant_type": "refresh_token", "resource_hint": "tokenvault-tests",
                        "scope": "openid profile read",
                    ]
                ])
            #expect(try await server.tokenRequests() == ["refresh_token": 1])
            // The server got the scope: it granted that scope, narrower than the password grant's.
            #expect(renewed.scope == ["openid", "profile", "read"])
            #expect(try await manager.credentials() == renewed)
        }

        /// A server that issues access tokens for another API from the refresh token, as Auth0
        /// does: the audience and scope go on the wire, the token comes back for them (the server's
        /// introspection says so), is handed out without being stored, and a rotated refresh token
        /// is stored first, so the next renewal works with reuse protection on.
        @Test func apiCredentialsComeBackForTheAudienceAndScopeAskedFor() async throws {
            let audience = "https://api.example.com"
            let server = try AuthorizationServer(
                .init(rotateRefreshTokens: true, reuseProtection: true, apiAudiences: [audience]))
            let manager = CredentialsManager(name: "api")
            let signedIn = try await server.passwordToken()
            try manager.store(credentials: signedIn)
            let recorder = RecordingHTTPClient(recording: server.url, formFields: ["grant_type", "audience", "scope"])
            Credential.httpClient = recorder
            defer { Credential.httpClient = URLSessionHTTPClient() }
            try await server.resetStats()

            let api = try await manager.apiCredentials(forAudience: audience, scope: ["read"])
            #expect(
                Self.tokenRequestForms(recorder) == [
                    ["grant_type": "refresh_token", "audience": audience, "scope": "read"]
                ])
            #expect(try await server.tokenRequests(forAudience: audience) == 1)
            #expect(api.audience == audience && api.scope == ["read"] && api.tokenType == "Bearer")
            #expect(api.expiresAt > Date().addingTimeInterval(60))
            // The manager asked the server's introspection (the token is opaque), which the test asks too.
            #expect(recorder.lines.filter { $0 == "POST /introspect/" }.count == 1)
            let asAToken = Token(
                id: signedIn.id, tokenType: api.tokenType, accessToken: api.accessToken, refreshToken: nil,
                idToken: nil,
                deviceSecret: nil, scope: api.scope, issuedAt: Date(), expiresIn: 60, context: signedIn.context)
            let info = try await server.client().introspect(asAToken, type: .accessToken)
            #expect(info.active && info.audience == [audience] && info[.scope] as? String == "read")

            // Not stored: the credentials keep their own access token, and the one record; the
            // rotated refresh token was stored (a replay of the old one would end the family).
            let stored = try await manager.credentials()
            #expect(stored.accessToken == signedIn.accessToken)
            #expect(stored.refreshToken != signedIn.refreshToken)
            #expect(Credential.allIDs == [signedIn.id])
            // Not cached: the next call asks the server again, for a new token.
            let again = try await manager.apiCredentials(forAudience: audience, scope: ["read"])
            #expect(again.accessToken != api.accessToken)
            #expect(try await server.tokenRequests(forAudience: audience) == 2)

            let renewed = try await manager.renew()
            #expect(renewed.scope?.contains("openid") == true)  // the refresh token kept its scope
            #expect(try await server.client().introspect(asAToken, type: .accessToken).active)
        }

        @Test func anAudienceTheServerDoesNotKnowIsItsRefusalAndRotatesNothing() async throws {
            let server = try AuthorizationServer(
                .init(rotateRefreshTokens: true, reuseProtection: true, apiAudiences: ["https://api.example.com"]))
            let manager = CredentialsManager(name: "api-unknown")
            let signedIn = try await server.passwordToken()
            try manager.store(credentials: signedIn)
            let refused = CredentialsManagerError.apiExchangeFailed(
                .server(
                    error: "access_denied", description: "Service not found: https://unknown.example.com",
                    statusCode: 403))
            await #expect(throws: refused) {
                try await manager.apiCredentials(forAudience: "https://unknown.example.com")
            }
            #expect(try await manager.credentials().refreshToken == signedIn.refreshToken)
            try await manager.renew()
            #expect(manager.hasValid(minTTL: 60))
        }

        @Test func aServerWithoutAudienceSupportGivesATypedErrorAndLosesNoRefreshToken() async throws {
            let server = try AuthorizationServer(.init(rotateRefreshTokens: true, reuseProtection: true))
            let manager = CredentialsManager(name: "api")
            let signedIn = try await server.passwordToken()
            try manager.store(credentials: signedIn)
            await #expect(throws: CredentialsManagerError.audienceNotSupported("https://api.example.com")) {
                try await manager.apiCredentials(forAudience: "https://api.example.com", scope: ["openid"])
            }
            // The server rotated the refresh token; replaying the old one would revoke the family.
            let stored = try await manager.credentials()
            #expect(stored.refreshToken != signedIn.refreshToken)
            #expect(stored.accessToken == signedIn.accessToken)
            try await manager.renew()
            #expect(manager.hasValid(minTTL: 60))
        }

        @Test func aRenewalTheServerRefusesIsAServerError() async throws {
            let server = try AuthorizationServer()
            let manager = CredentialsManager(name: "refused")
            let signedIn = try await server.passwordToken()
            let forged = Token(
                id: signedIn.id, tokenType: signedIn.tokenType, accessToken: signedIn.accessToken,
                refreshToken: "not-a-refresh-token-\(UUID().uuidString)", idToken: nil, deviceSecret: nil,
                scope: signedIn.scope, issuedAt: signedIn.issuedAt, expiresIn: -10, context: signedIn.context)
            try manager.store(credentials: forged)
            do {
                _ = try await manager.credentials()
                Issue.record("a forged refresh token was accepted")
            } catch CredentialsManagerError.renewFailed(.server(let error, _, _)) {
                #expect(error == "invalid_grant")
            }
            #expect(manager.canRenew())  // nothing was removed
        }

        @Test func revokeEndsTheTokensAtTheServerThenRemovesThem() async throws {
            let server = try AuthorizationServer()
            let manager = CredentialsManager(name: "revoke")
            let signedIn = try await server.passwordToken()
            try manager.store(credentials: signedIn)
            try await manager.revoke()
            await #expect(throws: CredentialsManagerError.noCredentials) { try await manager.credentials() }
            let client = server.client()
            #expect(try await !client.introspect(signedIn, type: .accessToken).active)
        }

        @Test func aRevocationThatCannotReachTheServerRemovesNothing() async throws {
            let server = try AuthorizationServer()
            let manager = CredentialsManager(name: "unreachable")
            try manager.store(credentials: try await server.passwordToken())
            server.stop()
            do {
                try await manager.revoke()
                Issue.record("a revocation without a server succeeded")
            } catch CredentialsManagerError.revokeFailed {
            }
            #expect(manager.hasValid())
        }
    }
}
