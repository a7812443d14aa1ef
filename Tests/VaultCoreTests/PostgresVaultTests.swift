import Foundation
import Locking
import TestSupport
import Testing
import TokenVault
import VaultStorage

/// What only a vault in PostgreSQL has: several processes' vaults on one schema, several vaults in
/// one database, the server's view of the rows, and failures of the server. What every backend
/// shares is in ``VaultConformanceTests``.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipComment))
struct PostgresVaultTests {
    let unlock = TestVaults.unlock

    private func create(_ connection: String) throws -> Vault {
        try Vault.create(postgres: connection, unlock: unlock, keyDerivation: TestVaults.fastKeyDerivation)
    }

    /// Runs `body` on a connection to the vault's schema as the test's superuser.
    @discardableResult
    private func admin<Result>(_ connection: String, _ body: (PostgresConnection) throws -> Result) throws -> Result {
        let db = try PostgresConnection(PostgresConnectionString(connection))
        defer { db.close() }
        return try body(db)
    }

    @Test func twoVaultsOnOneSchemaShareEveryWriteAndKeySlot() throws {
        let connection = try PostgresTestServer.makeVaultSchema()
        let first = try create(connection)
        let second = try Vault.open(postgres: connection, unlock: unlock)
        try first.set("one", for: SecretKey<String>("shared"))
        #expect(try second.get(SecretKey<String>("shared")) == "one")
        try second.update(SecretKey<String>("shared")) { ($0 ?? "") + "+two" }
        #expect(try first.get(SecretKey<String>("shared")) == "one+two")
        try first.addUnlock(.passphrase("another long passphrase"), keyDerivation: TestVaults.fastKeyDerivation)
        #expect(try second.keySlots().count == 2)
        let replacement = VaultUnlock.passphrase("a third long passphrase")
        try second.changeUnlock(from: unlock, to: replacement, keyDerivation: TestVaults.fastKeyDerivation)
        // The slot the first vault was unlocked through is revoked on the server: it locks.
        #expect(throws: VaultError.locked) { try first.get(SecretKey<String>("shared")) }
        #expect(throws: VaultError.invalidCredentials) { try Vault.open(postgres: connection, unlock: unlock) }
        try first.unlock(replacement)
        #expect(try first.get(SecretKey<String>("shared")) == "one+two")
        #expect(try first.verify().keySlotCount == 2)
    }

    /// A get by name reads the epoch and its rows in one statement: a get through another unlock
    /// after a rotation must still see the new key epoch and follow it, and one whose slot was
    /// removed must lock, for tokens in an access group as for secrets.
    @Test func aGetByNameFollowsARotationByAnotherVaultAndLocksWhenItsSlotIsRemoved() throws {
        let directory = TemporaryDirectory()
        let connection = try PostgresTestServer.makeVaultSchema()
        let owner = try create(connection)
        let keyFile = directory.file("service.key")
        try KeyFile.generate(at: keyFile)
        try owner.addUnlock(.keyFile(keyFile))
        let service = try Vault.open(postgres: connection, unlock: .keyFile(keyFile))
        let secret = SecretKey<String>("api key", policy: VaultPolicy(accessGroup: "team"))
        try service.set("before", for: secret)
        _ = try service.insertTokenRecord(
            id: "grouped", metadata: [1], terms: [], secret: Array("token bytes".utf8),
            policy: VaultPolicy(accessGroup: "team"), defaultIfNone: false)
        #expect(try service.tokenRecordSecret(id: "grouped", authenticationContext: nil, prompt: nil)?.count == 11)

        try owner.changeUnlock(
            from: unlock, to: .passphrase("a rotated passphrase"), keyDerivation: TestVaults.fastKeyDerivation)
        #expect(try service.get(secret) == "before")
        #expect(
            try service.tokenRecordSecret(id: "grouped", authenticationContext: nil, prompt: nil)
                == Array("token bytes".utf8))
        #expect(try service.tokenRecordMetadata(id: "grouped")?.id == "grouped")
        #expect(try service.tokenRecordMetadata(id: "missing") == nil)
        try owner.set("after", for: secret)
        #expect(try service.get(secret) == "after")

        try owner.removeUnlock(.keyFile(keyFile))
        #expect(throws: VaultError.locked) {
            try service.tokenRecordSecret(id: "grouped", authenticationContext: nil, prompt: nil)
        }
        #expect(service.isLocked)
    }

    /// A write that may run twice is first run on what the vault knows from its own last write and
    /// sent in one round trip; when another vault wrote in between, the guard on the change counter
    /// must stop it and it must run again in a transaction, so nothing is lost or written twice.
    @Test func writesSentInOneRoundTripNeverMissAnotherVaultsWrite() throws {
        let connection = try PostgresTestServer.makeVaultSchema()
        let first = try create(connection)
        let second = try Vault.open(postgres: connection, unlock: unlock)
        let key = SecretKey<String>("shared")
        try first.set("a", for: key)  // a transaction: nothing known yet
        try first.set("b", for: key)  // ahead, in one round trip
        #expect(first.writesAheadForTesting?.committed == 1)
        try second.set("c", for: SecretKey<String>("second's"))
        try first.set("d", for: key)  // ahead on a stale state: refused, then a transaction
        #expect(first.writesAheadForTesting?.rerun == 1)
        for step in 0..<6 {
            let writer = step.isMultiple(of: 2) ? first : second
            _ = try writer.insertTokenRecord(
                id: "token \(step)", metadata: [UInt8(step)], terms: [IndexTerm(field: "tag", value: "t")],
                secret: [UInt8(step)], policy: VaultPolicy(), defaultIfNone: true)
            try writer.set("\(step)", for: key)
        }
        _ = try first.removeTokenRecord(id: "token 0")
        _ = try first.removeTokenRecord(id: "token 2")
        #expect(throws: VaultError.alreadyExists("a token with this id")) {
            _ = try first.insertTokenRecord(
                id: "token 4", metadata: [], terms: [], secret: [], policy: VaultPolicy(), defaultIfNone: false)
        }

        #expect(try #require(first.writesAheadForTesting).rerun >= 2)
        for vault in [first, second] {
            #expect(try vault.get(key) == "5")
            #expect(try vault.get(SecretKey<String>("second's")) == "c")
            #expect(
                try vault.allTokenRecordMetadata().map(\.id).sorted() == ["token 1", "token 3", "token 4", "token 5"])
            #expect(try vault.defaultTokenRecordID() == nil)  // "token 0" was the default, and went
            #expect(try vault.verify().recordCount == 7)  // and the default's pointer, now empty
        }
    }

    /// Terms wait in their records' rows until enough records have some, then one statement on
    /// the server files them all in the index; the filing goes in the pipeline of the write that
    /// fills the limit, and every record is found by its term before and after.
    @Test func termsAreFiledOnTheServerInTheWriteThatFillsTheLimit() throws {
        let connection = try PostgresTestServer.makeVaultSchema()
        let vault = try create(connection)
        let shared = IndexTerm(field: "tag", value: "team=a")
        var ids: [String] = []
        func insert() throws {
            let id = "token \(ids.count)"
            _ = try vault.insertTokenRecord(
                id: id, metadata: Array(id.utf8), terms: [shared, IndexTerm(field: "tag", value: id)],
                secret: [1], policy: VaultPolicy(), defaultIfNone: false)
            ids.append(id)
        }
        func waiting() throws -> Int64 {
            try admin(connection) { try $0.queryFirst("SELECT count(*) FROM records WHERE terms IS NOT NULL")?.int8(0) }
                ?? -1
        }
        // The first filing sets the mark; then records wait until the limit is reached.
        try insert()
        for _ in 1..<Int(UnfiledTerms.limit) { try insert() }
        #expect(try waiting() == Int64(UnfiledTerms.limit) - 1)
        #expect(try vault.tokenRecordMetadata(matchingAll: [shared])?.map(\.id).sorted() == ids.sorted())
        let before = try #require(vault.writesAheadForTesting)
        try insert()
        #expect(try waiting() == 0)
        #expect(vault.writesAheadForTesting?.committed == before.committed + 1)
        #expect(vault.writesAheadForTesting?.rerun == before.rerun)
        let filed = try admin(connection) { try $0.queryFirst("SELECT count(*) FROM record_index")?.int8(0) }
        #expect(filed == Int64(ids.count * 2))
        #expect(try vault.tokenRecordMetadata(matchingAll: [shared])?.map(\.id).sorted() == ids.sorted())
        #expect(
            try vault.tokenRecordMetadata(matchingAll: [IndexTerm(field: "tag", value: "token 7")])?.map(\.id) == [
                "token 7"
            ])
        #expect(try vault.verify().recordCount >= ids.count)
    }

    @Test func processesOfAFleetNeverLoseAnUpdate() throws {
        let directory = TemporaryDirectory()
        let (vault, _, connectionFile, keyFile) = try PostgresTestServer.keyFileVault(in: directory)
        let processes = 3
        let increments = 30
        let workers = try (0..<processes).map { _ in
            try WorkerProcess.start(
                ["increment", connectionFile.path, keyFile.path, "counter", "\(increments)"])
        }
        for index in 0..<increments { try vault.set(index, for: SecretKey<Int>("parent")) }
        for worker in workers {
            let (status, output) = WorkerProcess.finish(worker)
            #expect(status == 0, "worker failed: \(output)")
        }
        #expect(try vault.get(SecretKey<Int>("counter")) == processes * increments)
        let report = try vault.verify()
        #expect(report.recordCount == 2)
        #expect(report.generation == UInt64(processes * increments + increments))
    }

    /// A waiter hears another process's commit on the vault's channel: its wait ends with the mark
    /// moved, where a wait that only timed out would leave the mark as it was.
    @Test func aWaitForChangeEndsWhenAnotherProcessCommits() async throws {
        let directory = TemporaryDirectory()
        let (vault, _, workerPath, keyFile) = try PostgresTestServer.keyFileVault(in: directory)
        let mark = vault.changeMark()
        await vault.waitForChange(since: mark, timeout: .milliseconds(50))
        #expect(vault.changeMark() == mark)  // nothing was written: the wait timed out
        let worker = try WorkerProcess.start(["increment", workerPath.path, keyFile.path, "n", "1"])
        await vault.waitForChange(since: mark, timeout: .seconds(120))
        #expect(vault.changeMark() != mark)
        let (status, output) = WorkerProcess.finish(worker)
        #expect(status == 0, "worker failed: \(output)")
        #expect(try vault.get(SecretKey<Int>("n")) == 1)
    }

    /// A write transaction that changed no row (a lease found taken) notifies no one, where one
    /// that wrote does: another vault's wait times out on the first and ends on the second.
    @Test func onlyAWriteThatChangedARowNotifies() async throws {
        let connection = try PostgresTestServer.makeVaultSchema()
        let writer = try create(connection)
        let listener = try Vault.open(postgres: connection, unlock: unlock)
        #expect(try writer.acquireLease("held", owner: "first", duration: 600))
        let mark = listener.changeMark()
        #expect(try !writer.acquireLease("held", owner: "second", duration: 600))
        await listener.waitForChange(since: mark, timeout: .milliseconds(500))
        #expect(listener.changeMark() == mark)
        try writer.set(1, for: SecretKey<Int>("written"))
        await listener.waitForChange(since: mark, timeout: .seconds(120))
        #expect(listener.changeMark() != mark)
    }

    /// The token listing cache trusts an unchanged stamp: the server's change counter must move with
    /// every commit of any connection.
    @Test func aListingSeesEveryWriteOfAnotherConnection() throws {
        let connection = try PostgresTestServer.makeVaultSchema()
        let first = try create(connection)
        let second = try Vault.open(postgres: connection, unlock: unlock)
        func listing(_ vault: Vault) throws -> [String: [UInt8]] {
            Dictionary(uniqueKeysWithValues: try vault.allTokenRecordMetadata().map { ($0.id, $0.metadata) })
        }
        func insert(_ id: String, into vault: Vault) throws {
            _ = try vault.insertTokenRecord(
                id: id, metadata: [1], terms: [], secret: [2], policy: VaultPolicy(), defaultIfNone: false)
        }
        try insert("one", into: first)
        #expect(try listing(second) == ["one": [1]])
        #expect(try listing(second) == ["one": [1]])
        try insert("two", into: first)
        #expect(try listing(second) == ["one": [1], "two": [1]])
        let version = try #require(try first.tokenRecordMetadata(id: "one")).version
        try first.updateTokenRecord(id: "one", metadata: [3], terms: [], secret: nil, expectedVersion: version)
        #expect(try listing(second) == ["one": [3], "two": [1]])
        try first.removeTokenRecord(id: "two")
        #expect(try listing(second) == ["one": [3]])
        try insert("three", into: second)
        #expect(try listing(first) == ["one": [3], "three": [1]])
    }

    @Test func writersOnTwoConnectionsNeverLoseAnUpdate() async throws {
        let connection = try PostgresTestServer.makeVaultSchema()
        let vaults = [try create(connection), try Vault.open(postgres: connection, unlock: unlock)]
        let counter = SecretKey<Int>("counter")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for _ in 0..<15 { try vaults[task % 2].update(counter) { ($0 ?? 0) + 1 } }
                }
            }
            try await group.waitForAll()
        }
        #expect(try vaults[0].get(counter) == 8 * 15)
        #expect(try vaults[1].verify().recordCount == 1)
    }

    @Test func eachSchemaHoldsOneVault() throws {
        let teamA = try PostgresTestServer.makeVaultSchema()
        let teamB = try PostgresTestServer.makeVaultSchema()
        #expect {
            try Vault.open(postgres: teamA, unlock: unlock)
        } throws: { error in
            guard case VaultError.notFound(let what) = error else { return false }
            return what.contains("schema vault_")
        }
        let a = try create(teamA)
        let b = try create(teamB)
        try a.set("a", for: SecretKey<String>("name"))
        try b.set("b", for: SecretKey<String>("name"))
        #expect(try a.get(SecretKey<String>("name")) == "a")
        #expect(try b.get(SecretKey<String>("name")) == "b")
        #expect {
            try create(teamA)
        } throws: { error in
            guard case VaultError.alreadyExists = error else { return false }
            return true
        }
    }

    @Test func theServerHoldsOnlySealedBytesAndKeyedHashes() throws {
        let connection = try PostgresTestServer.makeVaultSchema()
        let vault = try create(connection)
        let secret = "s3cr3t-token-value"
        let name = "visible-item-name"
        try vault.set(secret, for: SecretKey<String>(name, policy: VaultPolicy(accessGroup: "team-alpha")))
        _ = try vault.insertTokenRecord(
            id: "token-id-42", metadata: Array("tag-value-beta".utf8),
            terms: [IndexTerm(field: "tag", value: "tag-value-beta")], secret: Array(secret.utf8),
            policy: VaultPolicy(), defaultIfNone: true)
        let dump = try admin(connection) { db in
            try [
                "vault_header", "key_slots", "records", "integrity", "group_integrity", "record_index",
                "record_index_state",
            ].map { table in
                try db.query("SELECT coalesce(string_agg(row_to_json(t)::text, ' '), '') FROM \(table) t")
                    .map { try $0.text(0) }.joined()
            }.joined(separator: "\n")
        }
        #expect(dump.contains("\\\\x"))  // rows are there, as hex bytea
        for clear in [secret, name, "team-alpha", "token-id-42", "tag-value-beta", "correct horse battery staple"] {
            #expect(!dump.contains(clear))
            #expect(!dump.contains(clear.utf8.map { String(format: "%02x", $0) }.joined()))
        }
    }

    @Test func aServerErrorMidWriteLeavesNothingWritten() throws {
        let connection = try PostgresTestServer.makeVaultSchema()
        let vault = try create(connection)
        try vault.set("before", for: SecretKey<String>("kept"))
        // The digest is written last in a write transaction: fail there, after the rows.
        try admin(connection) { db in
            try db.execute(
                """
                CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'refused by the test'; END $$;
                CREATE TRIGGER refuse BEFORE UPDATE ON integrity FOR EACH ROW EXECUTE FUNCTION refuse();
                """)
        }
        #expect {
            try vault.set("after", for: SecretKey<String>("kept"))
            try vault.set("new", for: SecretKey<String>("added"))
        } throws: { error in
            guard case VaultError.storage(let detail) = error else { return false }
            return detail.contains("refused by the test")
        }
        try admin(connection) { db in try db.execute("DROP TRIGGER refuse ON integrity") }
        #expect(try vault.get(SecretKey<String>("kept")) == "before")
        #expect(try vault.get(SecretKey<String>("added")) == nil)
        #expect(try vault.verify().recordCount == 1)
    }

    @Test func aStatementPastTheTimeoutIsCancelledAndWritesNothing() throws {
        let connection = try PostgresTestServer.makeVaultSchema()
        var configuration = Vault.Configuration()
        // Long enough for creating the tables on a loaded machine, well short of the slow write.
        configuration.statementTimeout = .seconds(1)
        let vault = try Vault.create(
            postgres: connection, unlock: unlock, keyDerivation: TestVaults.fastKeyDerivation,
            configuration: configuration)
        try vault.set("before", for: SecretKey<String>("kept"))
        // A server that takes 4 s over each write of the digest, the last statement of a write.
        try admin(connection) { db in
            try db.execute(
                """
                CREATE FUNCTION slow() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN PERFORM pg_sleep(4); RETURN NEW; END $$;
                CREATE TRIGGER slow BEFORE UPDATE ON integrity FOR EACH ROW EXECUTE FUNCTION slow();
                """)
        }
        #expect {
            try vault.set("after", for: SecretKey<String>("kept"))
        } throws: { error in
            guard case VaultError.storage = error else { return false }
            return true
        }
        #expect(try vault.get(SecretKey<String>("kept")) == "before")
        // Without a limit the same write waits for the server and succeeds.
        configuration.statementTimeout = nil
        let patient = try Vault.open(postgres: connection, unlock: unlock, configuration: configuration)
        try patient.set("after", for: SecretKey<String>("kept"))
        try admin(connection) { db in try db.execute("DROP TRIGGER slow ON integrity") }
        #expect(try vault.get(SecretKey<String>("kept")) == "after")
    }

    /// Another session holds the vault's write lock: a write waits up to the busy timeout, then
    /// fails with a storage error that says so, having written nothing; once the lock is free the
    /// same vault writes again.
    @Test func aWriteWaitsForTheVaultsLockNoLongerThanTheBusyTimeout() throws {
        let connection = try PostgresTestServer.makeVaultSchema()
        var configuration = Vault.Configuration()
        configuration.busyTimeout = .milliseconds(300)
        let vault = try Vault.create(
            postgres: connection, unlock: unlock, keyDerivation: TestVaults.fastKeyDerivation,
            configuration: configuration)
        try vault.set("before", for: SecretKey<String>("kept"))
        let holder = try PostgresConnection(PostgresConnectionString(connection))
        defer { holder.close() }
        try holder.execute("BEGIN")
        try holder.run("SELECT pg_advisory_xact_lock(hashtext('tokenvault:' || current_schema()))")
        #expect {
            try vault.set("after", for: SecretKey<String>("kept"))
        } throws: { error in
            guard case VaultError.storage(let detail) = error else { return false }
            return detail.contains("busy timeout")
        }
        try holder.execute("COMMIT")
        #expect(try vault.get(SecretKey<String>("kept")) == "before")
        try vault.set("after", for: SecretKey<String>("kept"))
        #expect(try vault.get(SecretKey<String>("kept")) == "after")
    }

    @Test func aVaultOpensNoMoreConnectionsThanItsConfigurationAllows() throws {
        // Other tests share the database: count this vault's connections by their application name.
        let name = "pool-\(UInt64.random(in: .min ... .max))"
        let connection = try PostgresTestServer.makeVaultSchema() + " application_name=\(name)"
        var configuration = Vault.Configuration()
        configuration.connections = 2
        let vault = try Vault.create(
            postgres: connection, unlock: unlock, keyDerivation: TestVaults.fastKeyDerivation,
            configuration: configuration)
        try vault.set("v", for: SecretKey<String>("k"))
        // Eight threads reading at once, each waiting on the server in turn: more than two would
        // each take a connection if the pool let them.
        let failures = Locked(0)
        let done = DispatchGroup()
        for _ in 0..<8 {
            done.enter()
            Thread {
                defer { done.leave() }
                for _ in 0..<20 where (try? vault.get(SecretKey<String>("k"))) != "v" {
                    failures.withLock { $0 += 1 }
                }
            }.start()
        }
        done.wait()
        #expect(failures.withLock { $0 } == 0)
        let opened = try admin(connection) { db in
            try db.queryFirst(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()",
                [.text(name)])?.int8(0) ?? -1
        }
        #expect(opened >= 1 && opened <= 2)
        var none = Vault.Configuration()
        none.connections = 0
        #expect(throws: VaultError.self) { try Vault.open(postgres: connection, unlock: unlock, configuration: none) }
    }

    /// On a server of its own: the shared one stays up for every other test.
    @Test func aVaultOutlivesAServerRestartAndAServerGoneIsAStorageError() throws {
        let server = try PostgresTestServer()
        defer { server.stop() }
        let vault = try create(try server.makeVaultSchema())
        try vault.set("before", for: SecretKey<String>("kept"))
        try server.restart()
        // The pool drops the connections the restart broke and connects again.
        #expect(try vault.get(SecretKey<String>("kept")) == "before")
        try vault.set("after", for: SecretKey<String>("kept"))
        server.stop()
        #expect {
            try vault.set("lost", for: SecretKey<String>("kept"))
        } throws: { error in
            guard case VaultError.storage(let detail) = error else { return false }
            return !detail.contains(server.password)
        }
    }

    /// Writers keep writing while the server restarts twice under them: a write the restart broke
    /// fails with a storage error and is retried, and afterwards every acknowledged write is there
    /// and `verify()` finds nothing half-written.
    @Test func writersThroughServerRestartsLoseNoAcknowledgedWrite() throws {
        let server = try PostgresTestServer()
        defer { server.stop() }
        let directory = TemporaryDirectory()
        let (vault, connection, file, keyFile) = try PostgresTestServer.keyFileVault(
            in: directory, connection: try server.makeVaultSchema())
        let writers = 3
        let writes = 400
        let workers = try (0..<writers).map {
            try WorkerProcess.start(["set-retrying", file.path, keyFile.path, "w\($0)", "\(writes)"])
        }
        // Each restart comes once every writer has opened the vault and is writing (again).
        for progress in [20, 200] {
            let deadline = Date().addingTimeInterval(120)
            func underWay() -> Bool {
                (0..<writers).allSatisfy { (try? vault.get(SecretKey<String>("w\($0)/\(progress)"))) != nil }
            }
            while !underWay() && Date() < deadline { usleep(10_000) }
            try server.restart()
        }
        var retries = 0
        for worker in workers {
            let (status, output) = WorkerProcess.finish(worker)
            #expect(status == 0, "worker failed: \(output.suffix(400))")
            let lines = output.split(separator: "\n")
            #expect(lines.filter { $0.hasPrefix("ack ") }.count == writes)
            retries += lines.filter { $0.hasPrefix("retry ") }.count
        }
        let reopened = try Vault.open(postgres: connection, unlock: .keyFile(keyFile))
        for writer in 0..<writers {
            for index in 0..<writes {
                #expect(try reopened.get(SecretKey<String>("w\(writer)/\(index)")) == "value \(index)")
            }
        }
        #expect(try reopened.verify().recordCount == writers * writes)
        print("server restarts under load: \(writers * writes) acknowledged writes kept, \(retries) retried")
    }

    @Test func aRowDeletedOnTheServerFailsVerification() throws {
        let connection = try PostgresTestServer.makeVaultSchema()
        let vault = try create(connection)
        try vault.set("one", for: SecretKey<String>("one"))
        try vault.set("two", for: SecretKey<String>("two"))
        try admin(connection) { db in
            try db.run(
                "DELETE FROM records WHERE record_id = (SELECT record_id FROM records ORDER BY record_id LIMIT 1)")
        }
        #expect(throws: VaultError.self) { try vault.verify() }
    }

    @Test func tablesOfALaterSchemaVersionAreRefused() throws {
        let connection = try PostgresTestServer.makeVaultSchema()
        _ = try create(connection)
        try admin(connection) { db in try db.run("UPDATE vault_schema_version SET version = 99") }
        #expect {
            try Vault.open(postgres: connection, unlock: unlock)
        } throws: { error in
            guard case VaultError.unsupportedFormat(let detail) = error else { return false }
            return detail.contains("schema version 99")
        }
    }

    @Test func fileOnlyFeaturesSaySo() throws {
        let vault = try create(try PostgresTestServer.makeVaultSchema())
        #expect(vault.url == nil)
        #expect(try vault.compactLog())
        #expect {
            try vault.backup(to: URL(fileURLWithPath: "/nonexistent/backup.db"))
        } throws: { error in
            guard case VaultError.invalidArgument(let detail) = error else { return false }
            return detail.contains("SQLite file")
        }
    }

    @Test func noErrorQuotesTheConnectionPassword() throws {
        let server = try PostgresTestServer.shared.get()
        let connection = try PostgresTestServer.makeVaultSchema()
        let wrong = connection.replacingOccurrences(of: server.password, with: "wrong-password-7f3a9c")
        var errors: [any Error] = []
        for attempt in [
            { _ = try Vault.open(postgres: wrong, unlock: unlock) },
            { _ = try Vault.open(postgres: connection, unlock: unlock) },  // no vault yet
            { _ = try Vault.open(postgres: connection + " sslmode=bogus", unlock: unlock) },
        ] as [() throws -> Void] {
            do { try attempt() } catch { errors.append(error) }
        }
        #expect(errors.count == 3)
        for error in errors {
            for text in ["\(error)", String(reflecting: error), error.localizedDescription] {
                #expect(!text.contains(server.password))
                #expect(!text.contains("wrong-password-7f3a9c"))
            }
        }
    }
}
