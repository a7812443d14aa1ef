import Foundation
import OAuth2
import TestSupport
import Testing
import TokenVault

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension CredentialTests {
    /// What `lock()` and the end of the unlock session do to credentials the process already
    /// loaded: no public API gives their token strings until the vault can read them again. Part of
    /// the serialized suite: it uses the process-wide `Credential` state.
    @Suite struct LockHiding {
        let directory = TemporaryDirectory()
        let clock = ManualClock()
        let vault: Vault
        let keyFile: URL
        let factor: URL

        static let secrets = ["AT-lock-5c1e", "RT-lock-8b2f", "DS-lock-3a7d", "CS-lock-9e4c"]

        init() throws {
            keyFile = directory.file("vault.key")
            try KeyFile.generate(at: keyFile)
            vault = try Vault.create(
                at: directory.file("vault.db"), unlock: .keyFile(keyFile),
                configuration: .init(
                    idleTimeout: .seconds(60), clock: clock, deviceSecretURL: directory.file("device.secret")))
            factor = directory.file("factor.key")
            try KeyFile.generate(at: factor)
            try vault.enrollFactor(.keyFile(factor))
            try Credential.use(vault)
        }

        /// A token carrying every kind of secret, each string unique to this test run.
        func token(_ label: String, expiresIn: TimeInterval = 3600) -> Token {
            let context = Token.Context(
                issuer: TestTokens.issuer, clientID: "lock-client", clientSecret: Self.secrets[3] + label,
                scopes: ["openid"])
            return Token(
                id: UUID().uuidString, tokenType: "Bearer", accessToken: Self.secrets[0] + label,
                refreshToken: Self.secrets[1] + label,
                idToken: try? JWT(TestTokens.jwt(["sub": "\(label)@example.com", "nonce": "IDT-lock-\(label)"])),
                deviceSecret: Self.secrets[2] + label, scope: ["openid"], issuedAt: Date(), expiresIn: expiresIn,
                context: context)
        }

        /// Stores tokens with their security options, then loads them afresh through the facade,
        /// as an app starting up would.
        func loaded(_ stored: [(token: Token, security: [Credential.Security])]) throws -> [(Credential, Token)] {
            for (token, security) in stored { try Credential.store(token, security: security) }
            try Credential.use(vault)  // forget the instances: the lookups below read the vault
            let context = KeyFileAuthenticationContext(keyFile: factor)
            return try stored.map { token, _ in
                let credential = try #require(try Credential.with(id: token.id, authenticationContext: context))
                #expect(credential.token == token)
                return (credential, token)
            }
        }

        /// The token a hidden credential gives: its public parts, and not one secret.
        func expectHidden(_ credential: Credential, _ original: Token, _ error: VaultError) {
            let shown = credential.token
            #expect(shown.id == original.id)
            #expect(shown.expiresAt == original.expiresAt)
            #expect(shown.context.issuer == original.context.issuer)
            #expect(shown.accessToken.isEmpty)
            #expect(shown.refreshToken == nil && shown.idToken == nil && shown.deviceSecret == nil)
            #expect(shown.context.clientSecret == nil)
            #expect(throws: CredentialError.storage(error)) { try credential.currentToken() }
            let everything = "\(shown) \(String(reflecting: shown)) \(credential) \(String(reflecting: credential))"
            for secret in Self.secrets { #expect(!everything.contains(secret)) }
        }

        @Test func lockHidesEveryLoadedTokenAndUnlockShowsItAgain() throws {
            let loaded = try loaded([
                (token("after"), [.accessibility(.afterFirstUnlock)]),
                (token("when"), [.accessibility(.whenUnlocked)]),
                (token("device"), [.accessibility(.whenUnlockedThisDeviceOnly)]),
                (token("guarded"), [.accessibility(.whenUnlocked), .accessControl(.biometryAny)]),
            ])
            vault.lock()
            for (credential, token) in loaded {
                expectHidden(credential, token, .locked)
                #expect(throws: CredentialError.storage(.locked)) { try Credential.with(id: token.id) }
            }
            #expect(throws: CredentialError.storage(.locked)) { try Credential.find { _ in true } }

            try vault.unlock(.keyFile(keyFile))
            // Read again from the vault; the access-controlled one with the credential's context.
            for (credential, token) in loaded {
                #expect(credential.token == token)
                #expect(try Credential.with(id: token.id) === credential)
            }
        }

        /// A token just stored or read is kept as its sealed record: it goes with `lock()` like a
        /// copy under the cache key, and after a key rotation, which leaves the record's old keys
        /// behind, the credential reads it again instead of failing.
        @Test func aTokenKeptAsItsRecordGoesWithLockAndIsReadAgainAfterARotation() throws {
            let storedToken = token("stored")
            let readToken = token("read")
            let stored = try Credential.store(storedToken)
            let read = try #require(try loaded([(readToken, [])]).first?.0)

            let spare = directory.file("spare.key")
            try KeyFile.generate(at: spare)
            try vault.changeUnlock(from: .keyFile(keyFile), to: .keyFile(spare))
            #expect(stored.token == storedToken)
            #expect(read.token == readToken)

            vault.lock()
            expectHidden(stored, storedToken, .locked)
            expectHidden(read, readToken, .locked)
            try vault.unlock(.keyFile(spare))
            #expect(stored.token == storedToken)
            #expect(read.token == readToken)
        }

        @Test func theIdleTimeoutHidesSessionClassesAndAccessControlledTokensOnly() throws {
            let loaded = try loaded([
                (token("after"), [.accessibility(.afterFirstUnlock)]), (token("when"), [.accessibility(.whenUnlocked)]),
            ])
            let (after, afterToken) = loaded[0]
            let (when, whenToken) = loaded[1]
            let guardedToken = token("guarded")
            let guarded = try Credential.store(
                guardedToken, security: [.accessibility(.afterFirstUnlock), .accessControl(.biometryAny)])
            #expect(guarded.token == guardedToken)

            clock.advance(by: .seconds(61))
            #expect(after.token == afterToken)  // afterFirstUnlock outlives the session
            expectHidden(when, whenToken, .locked)
            // Its class key outlived the session, but the copy went with the session's keys, and
            // reading it again needs a proof this credential has no context for.
            expectHidden(guarded, guardedToken, .interactionRequired)
            let context = KeyFileAuthenticationContext(keyFile: factor)
            #expect(try Credential.with(id: guardedToken.id, authenticationContext: context) === guarded)
            #expect(guarded.token == guardedToken)
        }

        @Test func theAbsoluteTimeoutHidesSessionClassesHoweverBusyTheCredential() throws {
            let clock = ManualClock()
            let busy = try Vault.inMemory(
                unlock: .keyFile(keyFile), configuration: .init(sessionTimeout: .seconds(300), clock: clock))
            try Credential.use(busy)
            let original = token("busy")
            let credential = try Credential.store(original, security: [.accessibility(.whenUnlocked)])
            for _ in 0..<2 {
                clock.advance(by: .seconds(120))
                #expect(credential.token == original)  // in use, but the session ends all the same
            }
            clock.advance(by: .seconds(120))
            expectHidden(credential, original, .locked)
        }

        @Test func authorizeThrowsAndSetsNoHeaderWhileLocked() async throws {
            let loaded = try loaded([
                (token("authorize"), [.accessibility(.afterFirstUnlock)]),
                (token("expiring", expiresIn: 5), [.accessibility(.afterFirstUnlock)]),
            ])
            vault.lock()
            for (credential, _) in loaded {
                var request = URLRequest(url: URL(string: "https://api.example.com/me")!)
                // The issuer does not exist: any request to it would fail with a network error.
                await #expect(throws: CredentialError.storage(.locked)) {
                    try await credential.authorize(request: &request)
                }
                #expect(request.value(forHTTPHeaderField: "Authorization") == nil)

                let recorder = RefreshFailureRecorder()
                await credential.authorize(&request)
                #expect(request.value(forHTTPHeaderField: "Authorization") == nil)
                #expect(recorder.errors.count == 1)
                #expect(recorder.errors.first?.contains("locked") == true)
            }
        }

        @Test func everyCallThatUsesTheTokenThrowsLockedAndSendsNothing() async throws {
            let (credential, _) = try loaded([(token("calls"), [.accessibility(.whenUnlocked)])])[0]
            vault.lock()
            let locked = CredentialError.storage(.locked)
            await #expect(throws: locked) { try await credential.refresh() }
            await #expect(throws: locked) { try await credential.refreshIfNeeded(graceInterval: 7200) }
            await #expect(throws: locked) { try await credential.revoke() }
            await #expect(throws: locked) { try await credential.introspect(.accessToken) }
            await #expect(throws: locked) { try await credential.userInfo() }
            #expect(!credential.isRemoved)
        }

        /// A credential keeps its ID token's claims, readable without the token as `find` gives
        /// them, and not the ID token itself (its header and signature): only its sealed copy of the
        /// token holds that, so `lock()` leaves no readable ID token in the credential, after a store
        /// as after a new token took the old one's place.
        @Test func aCredentialKeepsItsIDTokensClaimsButNotTheIDToken() throws {
            let original = token("claims")
            let stored = try Credential.store(original)
            let manager = CredentialsManager(name: "claims")
            let first = token("claims-first")
            try manager.store(credentials: first)
            let managed = try #require(
                try Credential.find(claim: "sub", equals: "claims-first@example.com").first)
            let second = token("claims-second")
            let replacement = Token(
                id: second.id, tokenType: "Bearer", accessToken: second.accessToken,
                refreshToken: second.refreshToken, idToken: second.idToken, deviceSecret: nil, scope: ["openid"],
                issuedAt: Date(), expiresIn: 3600, context: first.context)
            try manager.store(credentials: replacement)  // the held credential takes the new token
            vault.lock()
            for (credential, token) in [(stored, original), (managed, replacement)] {
                let idToken = try #require(token.idToken)
                #expect(!credential.metadata.holdsIDTokenForTesting)
                #expect(credential.metadata.claims == idToken.claims)
                #expect(credential.metadata.claimsVerified == idToken.isVerified)
            }
            #expect(managed.metadata.claims["sub"] == .string("claims-second@example.com"))
        }

        @Test func theCredentialsManagerGivesNoTokenWhileLocked() async throws {
            let manager = CredentialsManager(name: "lock")
            try manager.store(credentials: token("managed"))
            #expect(manager.hasValid())
            vault.lock()
            #expect(!manager.hasValid())
            #expect(!manager.canRenew())
            await #expect(throws: CredentialsManagerError.locked) { try await manager.credentials() }
        }
    }

    /// Against the real server: a locked credential never reaches it, and works again once the
    /// vault is unlocked.
    @Suite(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
    struct LockHidingWithServer {
        let directory = TemporaryDirectory()
        let vault: Vault
        let keyFile: URL

        init() throws {
            (vault, _, keyFile) = try TestVaults.keyFileVault(in: directory)
            try Credential.use(vault)
        }

        @Test func anExpiringCredentialMakesNoRequestUntilUnlocked() async throws {
            let server = try AuthorizationServer()
            let credential = try Credential.store(try await server.passwordToken().expiring(in: 10))
            try await server.resetStats()
            vault.lock()
            var request = URLRequest(url: server.url.appendingPathComponent("userinfo/"))
            await #expect(throws: CredentialError.storage(.locked)) {
                try await credential.authorize(request: &request)
            }
            #expect(request.value(forHTTPHeaderField: "Authorization") == nil)
            #expect(try await server.tokenRequests("refresh_token") == 0)

            try vault.unlock(.keyFile(keyFile))
            try await credential.authorize(request: &request)
            #expect(try await server.tokenRequests("refresh_token") == 1)
            let (_, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
        }
    }
}
