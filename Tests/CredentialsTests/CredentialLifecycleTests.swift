import Foundation
import Locking
import TestSupport
import Testing
import TokenVault

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Records `.credentialRefreshFailed` notifications while alive.
final class RefreshFailureRecorder {
    private let seen = Locked<[String]>([])
    private var observer: (any NSObjectProtocol)?

    init() {
        let seen = self.seen
        observer = NotificationCenter.default.addObserver(forName: .credentialRefreshFailed, object: nil, queue: nil) {
            note in
            let error = note.userInfo?["error"].map { "\($0)" } ?? "no error"
            seen.withLock { $0.append(error) }
        }
    }

    var errors: [String] { seen.value }

    deinit {
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }
}

extension CredentialTests {
    /// The token lifecycle against the real server. Part of the serialized suite: it uses the
    /// process-wide `Credential` state.
    @Suite(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
    struct Lifecycle {
        let directory = TemporaryDirectory()
        let vault: Vault
        let keyFile: URL
        let vaultURL: URL

        init() throws {
            (vault, vaultURL, keyFile) = try TestVaults.keyFileVault(in: directory)
            try Credential.use(vault)
        }

        /// A stored credential for the test user whose access token is about to expire.
        func expiringCredential(_ server: AuthorizationServer) async throws -> Credential {
            try Credential.store(try await server.passwordToken().expiring(in: 10))
        }

        func stored(_ credential: Credential) throws -> Token? {
            try Credential.tokenStorage.token(id: credential.id, prompt: nil, authenticationContext: nil)
        }

        @Test func concurrentRefreshesInOneProcessMakeOneRequest() async throws {
            let server = try AuthorizationServer(.init(rotateRefreshTokens: true, reuseProtection: true))
            let credential = try await expiringCredential(server)
            let before = credential.token
            try await server.resetStats()
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        if index % 2 == 0 {
                            try await credential.refreshIfNeeded(graceInterval: 60)
                            return credential.token.accessToken
                        }
                        var request = URLRequest(url: server.url)
                        try await credential.authorize(request: &request)
                        return request.value(forHTTPHeaderField: "Authorization") ?? ""
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(try await server.tokenRequests("refresh_token") == 1)
            #expect(tokens.count == 2)  // one token, seen bare and in "Bearer <token>"
            #expect(credential.token.accessToken != before.accessToken)
            #expect(try stored(credential) == credential.token)  // persisted
            #expect(credential.token.idToken?.subject != nil)  // the refresh brought an ID token
            #expect(credential.metadata.preferredUsername == "testuser")  // and its claims
            // Reuse protection never tripped: the rotated family still works.
            try await credential.refresh()
            #expect(try await credential.introspect(.accessToken).active)
        }

        /// The vaults processes share a credential in: this suite's vault file, and a vault in
        /// PostgreSQL as a fleet's replicas share it (when a server could be started).
        static let sharedVaults = ["vault file"] + (PostgresTestServer.isAvailable ? ["vault in PostgreSQL"] : [])

        /// Makes `Credential` use the vault `kind` names, and returns the path a worker opens it by.
        func useSharedVault(_ kind: String) throws -> URL {
            guard kind == "vault in PostgreSQL" else { return vaultURL }
            let connection = try PostgresTestServer.makeVaultSchema()
            try Credential.use(
                Vault.create(
                    postgres: connection, unlock: .keyFile(keyFile), keyDerivation: TestVaults.fastKeyDerivation))
            return PostgresTestServer.connectionFile(connection, in: directory.url)
        }

        @Test(arguments: sharedVaults)
        func concurrentRefreshesInFourProcessesMakeOneRequest(vault kind: String) async throws {
            let sharedVault = try useSharedVault(kind)
            let server = try AuthorizationServer(.init(rotateRefreshTokens: true, reuseProtection: true))
            let credential = try await expiringCredential(server)
            try await server.resetStats()
            let workers = try (0..<4).map { _ in
                try WorkerProcess.start(["refresh", sharedVault.path, keyFile.path, credential.id, "60"])
            }
            let printed = workers.map { WorkerProcess.finish($0) }
            for (status, output) in printed { #expect(status == 0, "\(output)") }
            #expect(try await server.tokenRequests("refresh_token") == 1)
            let accessTokens = Set(printed.map { $0.output.split(separator: "\n").first.map(String.init) ?? "" })
            #expect(accessTokens.count == 1, "\(printed.map(\.output))")
            #expect(try stored(credential)?.accessToken == accessTokens.first)
            try await credential.refreshIfNeeded(graceInterval: 60)  // this process re-reads, no request
            #expect(credential.token.accessToken == accessTokens.first)
            #expect(try await server.tokenRequests("refresh_token") == 1)
            try await credential.refresh()  // and the family is intact
        }

        /// The server rotates the refresh token while the vault's database is down: the refresh
        /// keeps the only copy of the new one and writes it once the database is back, so the next
        /// refresh sends the live refresh token, not the dead one (reuse protection would end the
        /// grant on a replay).
        @Test(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipComment))
        func aRefreshAnsweredWhileTheDatabaseIsDownIsWrittenOnceItIsBack() async throws {
            let database = try PostgresTestServer()
            defer { database.stop() }
            try Credential.use(
                Vault.create(
                    postgres: try database.makeVaultSchema(), unlock: .keyFile(keyFile),
                    keyDerivation: TestVaults.fastKeyDerivation))
            let server = try AuthorizationServer(.init(rotateRefreshTokens: true, reuseProtection: true))
            let credential = try Credential.store(try await server.passwordToken())
            try await server.resetStats()
            try await server.armFault("hold", seconds: 60, process: true)  // rotated, answer held
            let refresh = Task { try await credential.refresh() }
            #expect(try await server.awaitHeld() == 1, "the refresh never reached the server")
            database.shutDown()
            try await server.releaseHeld()
            // The answer arrives while the database is down: its writes fail until it is back.
            try await Task.sleep(for: .milliseconds(500))
            try database.startAgain()
            try await refresh.value
            #expect(try stored(credential) == credential.token)
            try await credential.refresh()
            #expect(try await credential.introspect(.accessToken).active)
            #expect(try await server.tokenRequests("refresh_token") == 2)
        }

        @Test func twoSecondTokensExpireForRealAndAreRefreshedBeforeUse() async throws {
            let server = try AuthorizationServer(.init(accessTokenLifetime: 2))
            let credential = try Credential.store(try await server.passwordToken())
            #expect(try await credential.userInfo().preferredUsername == "testuser")
            // Wait for the server, not for a clock: poll until it calls the token expired.
            try await eventually { (try? await credential.userInfo()) == nil }
            await #expect(throws: CredentialError.self) { try await credential.userInfo() }
            try await server.resetStats()
            var request = URLRequest(url: server.url.appendingPathComponent("userinfo/"))
            try await credential.authorize(request: &request)
            #expect(try await server.tokenRequests("refresh_token") == 1)
            let (_, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
        }

        @Test func graceLogicRefreshesOnlyWithinTheGrace() async throws {
            let server = try AuthorizationServer()
            let credential = try Credential.store(try await server.passwordToken().expiring(in: 100))
            try await server.resetStats()
            try await credential.refreshIfNeeded(graceInterval: 50)  // 100 s left > 50 s grace
            #expect(try await server.tokenRequests("refresh_token") == 0)
            try await credential.refreshIfNeeded(graceInterval: 100)  // expiresAt - now <= grace
            #expect(try await server.tokenRequests("refresh_token") == 1)
            Credential.refreshGraceInterval = 300
            try await credential.refreshIfNeeded()  // a fresh 1-hour token is outside 300 s
            #expect(try await server.tokenRequests("refresh_token") == 1)
        }

        @Test func revokingTheAccessTokenKeepsARefreshableCredential() async throws {
            let server = try AuthorizationServer()
            let credential = try Credential.store(try await server.passwordToken())
            let token = credential.token
            try await credential.revoke(type: .accessToken)
            #expect(try await !credential.introspect(.accessToken).active)
            await #expect(throws: CredentialError.self) { try await credential.userInfo() }
            #expect(try Credential.with(id: token.id) === credential)  // kept: it has a refresh token
            #expect(credential.token.expiresAt <= Date())  // and marked expired, so the next use refreshes
        }

        @Test(arguments: [Token.RevokeType.refreshToken, .all])
        func revokingTheGrantRemovesTheCredential(type: Token.RevokeType) async throws {
            let server = try AuthorizationServer()
            let credential = try Credential.store(try await server.passwordToken())
            let token = credential.token
            try await credential.revoke(type: type)
            #expect(try Credential.with(id: token.id) == nil)
            #expect(credential.isRemoved)
            let client = server.client()
            #expect(try await !client.introspect(token, type: .accessToken).active)
            await #expect(throws: OAuth2Error.self) { try await client.userInfo(token) }
            await #expect(throws: OAuth2Error.self) { try await client.refresh(token) }
        }

        @Test func aTokenWithoutRefreshTokenIsRemovedWhenItsAccessTokenIsRevoked() async throws {
            let server = try AuthorizationServer()
            let credential = try Credential.store(
                try await server.client(AuthorizationServer.Client.service).clientCredentials(scopes: ["read"]))
            try await credential.revoke(type: .accessToken)
            #expect(credential.isRemoved)
        }

        @Test func failuresLeaveStorageUntouchedAndNothingHangs() async throws {
            let server = try AuthorizationServer(.init(rotateRefreshTokens: false, reuseProtection: false))
            Credential.requestTimeout = 1
            defer { Credential.requestTimeout = 30 }
            let credential = try await expiringCredential(server)
            let before = try #require(try stored(credential))
            let recorder = RefreshFailureRecorder()
            let faults: [(String, (CredentialError) -> Bool)] = [
                ("slow", { $0 == .oauth2(.network("the request timed out")) }),
                ("status500", { $0 == .oauth2(.unexpectedStatus(500)) }),
                ("truncated", { $0 == .oauth2(.invalidResponse("the token response is not a JSON object")) }),
            ]
            for (mode, expected) in faults {
                try await server.armFault(mode, seconds: 3)
                do {
                    try await credential.refresh()
                    Issue.record("\(mode): the refresh succeeded")
                } catch let error as CredentialError {
                    #expect(expected(error), "\(mode): \(error)")
                }
                #expect(try stored(credential) == before, "\(mode) changed storage")
                #expect(credential.token == before)
            }
            // The server stopped mid-test: a typed network error; revoke removes nothing either.
            server.stop()
            await #expect(throws: CredentialError.self) { try await credential.refresh() }
            await #expect(throws: CredentialError.self) { try await credential.revoke() }
            #expect(try stored(credential) == before)
            #expect(!credential.isRemoved)
            #expect(recorder.errors.count == 4)  // one notification per failed refresh
            #expect(try vault.verify().authenticatedRecordCount >= 1)
            // remove() is local: it works with the server gone.
            try credential.remove()
            #expect(try Credential.with(id: before.id) == nil)
        }

        @Test func authorizeWithoutTryPostsTheFailure() async throws {
            let server = try AuthorizationServer()
            let credential = try await expiringCredential(server)
            server.stop()
            let recorder = RefreshFailureRecorder()
            var request = URLRequest(url: server.url)
            await credential.authorize(&request)
            #expect(recorder.errors.count == 1)
            #expect(recorder.errors.first?.contains("network") == true)
            #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.token.accessToken)")
        }

        @Test func automaticRefreshStopsOnInvalidGrant() async throws {
            let server = try AuthorizationServer()
            let credential = try await expiringCredential(server)
            try await server.client().revoke(credential.token, type: .refreshToken)
            try await server.resetStats()
            let sleeps = Locked(0)
            credential.startAutomaticRefresh(graceInterval: 60, sleep: { _ in sleeps.withLock { $0 += 1 } })
            try await eventually { !credential.isRefreshingAutomatically }
            #expect(try await server.tokenRequests("refresh_token") == 1)
            #expect(sleeps.value == 1)  // one attempt, then stop: no retry loop on invalid_grant
        }

        @Test func automaticRefreshBacksOffOnTransientFailures() async throws {
            let server = try AuthorizationServer()
            let credential = try await expiringCredential(server)
            server.stop()
            let waits = Locked<[Duration]>([])
            credential.startAutomaticRefresh(
                graceInterval: 60,
                sleep: { wait in
                    let count = waits.withLock { waits in
                        waits.append(wait)
                        return waits.count
                    }
                    if count > 6 { throw CancellationError() }
                }, random: { 1 })
            try await eventually { waits.value.count > 6 }
            // The first wait is the schedule; then 1, 2, 4, 8, 16 s of full-jitter backoff ceilings.
            #expect(
                Array(waits.value.dropFirst().prefix(5)) == [
                    .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16),
                ])
            #expect(try stored(credential) == credential.token)
        }

        @Test func stoppingTheRefreshLetsACancellationHandlerReadTheCredential() async throws {
            let server = try AuthorizationServer()
            let credential = try await expiringCredential(server)
            let sleeping = Locked(false)
            let readOnCancel = Locked<Bool?>(nil)
            credential.startAutomaticRefresh(
                graceInterval: 60,
                sleep: { _ in
                    try await withTaskCancellationHandler {
                        sleeping.withLock { $0 = true }
                        try await Task.sleep(for: .seconds(3600))
                    } onCancel: {
                        // Runs inside stopAutomaticRefresh(), on its thread.
                        readOnCancel.withLock { $0 = credential.isRemoved }
                    }
                })
            try await eventually { sleeping.value }
            // On a thread of its own, so a stop that cancelled under the credential's lock would
            // fail here rather than hang the run.
            let stopped = Locked(false)
            Thread.detachNewThread {
                credential.stopAutomaticRefresh()
                stopped.withLock { $0 = true }
            }
            try await eventually(seconds: 10) { stopped.value }
            guard stopped.value else { return }  // the credential's lock is still held
            #expect(readOnCancel.value == false)
            #expect(!credential.isRefreshingAutomatically)
        }

        @Test func automaticRefreshHoldsACredentialTheAppLetGoOfUntilTheLoopEnds() async throws {
            let server = try AuthorizationServer()
            let sleeps = Locked(0)
            weak var released: Credential?
            do {
                let credential = try await expiringCredential(server)
                server.stop()
                credential.startAutomaticRefresh(
                    graceInterval: 60,
                    sleep: { _ in
                        let count = sleeps.withLock { count in
                            count += 1
                            return count
                        }
                        if count > 5 { throw CancellationError() }
                    }, random: { 0 })
                released = credential
            }
            // The app holds nothing: the loop keeps the credential through every failed attempt...
            try await eventually { sleeps.value > 5 }
            // ...and lets it go once it ends.
            try await eventually { released == nil }
        }

        @Test func credentialsManagerRenewsOnceAndClears() async throws {
            let server = try AuthorizationServer()
            let manager = CredentialsManager()
            #expect(!manager.hasValid())
            await #expect(throws: CredentialsManagerError.noCredentials) { try await manager.credentials() }
            try manager.store(credentials: try await server.passwordToken().expiring(in: 30))
            #expect(manager.canRenew())
            #expect(manager.hasValid())
            #expect(!manager.hasValid(minTTL: 60))
            try await server.resetStats()
            async let first = manager.credentials(minTTL: 60)
            async let second = manager.credentials(minTTL: 60)
            let (a, b) = try await (first, second)
            #expect(a == b)
            #expect(try await server.tokenRequests("refresh_token") == 1)
            #expect(manager.hasValid(minTTL: 60))
            await #expect(throws: CredentialsManagerError.largeMinTTL(7200)) {
                try await manager.credentials(minTTL: 7200)
            }
            #expect(manager.clear())
            #expect(!manager.clear())
            #expect(!manager.hasValid())
        }
    }
}

/// Waits until `condition` holds, checking every 50 ms for at most `seconds`: for conditions
/// outside this process (a server expiring a token), never as a timing assertion.
func eventually(seconds: Double = 20, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("condition still false after \(seconds) s")
            return
        }
        try await Task.sleep(for: .milliseconds(50))
    }
}
