import Foundation
import Locking
import TestSupport
import Testing
import TokenVault
import VaultCore

struct Profile: Codable, Sendable, Equatable {
    var clientID: String
    var scopes: [String]
    var created: Date
}

/// One suite, run against every kind of vault: on disk, in memory and in PostgreSQL.
@Suite struct VaultConformanceTests {
    let directory = TemporaryDirectory()

    @Test(arguments: VaultKind.all)
    func storesAnyCodableValue(kind: VaultKind) throws {
        let vault = try kind.make(directory)
        let profile = Profile(
            clientID: "cli", scopes: ["openid", "email"], created: Date(timeIntervalSince1970: 1_700_000_000.25))
        try vault.set("s3cr3t", for: SecretKey<String>("string"))
        try vault.set(Data([0, 1, 2, 255]), for: SecretKey<Data>("data"))
        try vault.set(Date(timeIntervalSince1970: 42.5), for: SecretKey<Date>("date"))
        try vault.set(profile, for: SecretKey<Profile>("profile"))
        try vault.set(7, for: SecretKey<Int>("int"))
        #expect(try vault.get(SecretKey<String>("string")) == "s3cr3t")
        #expect(try vault.get(SecretKey<Data>("data")) == Data([0, 1, 2, 255]))
        #expect(try vault.get(SecretKey<Date>("date")) == Date(timeIntervalSince1970: 42.5))
        #expect(try vault.get(SecretKey<Profile>("profile")) == profile)
        #expect(try vault.get(SecretKey<Int>("int")) == 7)
    }

    @Test(arguments: VaultKind.all)
    func missingValuesAreNilAndRemovalIsIdempotent(kind: VaultKind) throws {
        let vault = try kind.make(directory)
        let key = SecretKey<String>("token")
        #expect(try vault.get(key) == nil)
        #expect(try !vault.contains(key))
        try vault.set("one", for: key)
        #expect(try vault.contains(key))
        try vault.set("two", for: key)
        #expect(try vault.get(key) == "two")
        try vault.remove(key)
        #expect(try vault.get(key) == nil)
        #expect(try !vault.contains(key))
        try vault.remove(key)
        #expect(try vault.verify().recordCount == 0)
    }

    @Test(arguments: VaultKind.all)
    func namesAreCaseAndUnicodeExact(kind: VaultKind) throws {
        let vault = try kind.make(directory)
        try vault.set("lower", for: SecretKey<String>("name"))
        try vault.set("upper", for: SecretKey<String>("Name"))
        try vault.set("emoji", for: SecretKey<String>("näme 🔑"))
        #expect(try vault.get(SecretKey<String>("name")) == "lower")
        #expect(try vault.get(SecretKey<String>("Name")) == "upper")
        #expect(try vault.get(SecretKey<String>("näme 🔑")) == "emoji")
    }

    @Test(arguments: VaultKind.all)
    func removeAllClearsOnlyKeyValueItems(kind: VaultKind) throws {
        let vault = try kind.make(directory)
        for index in 0..<5 { try vault.set(index, for: SecretKey<Int>("n\(index)")) }
        try vault.removeAll()
        for index in 0..<5 { #expect(try vault.get(SecretKey<Int>("n\(index)")) == nil) }
        let report = try vault.verify()
        #expect(report.recordCount == 0)
        #expect(report.keySlotCount == 1)
        try vault.set(1, for: SecretKey<Int>("after"))
        #expect(try vault.get(SecretKey<Int>("after")) == 1)
    }

    @Test(arguments: VaultKind.all)
    func aValueReadAsAnotherTypeIsATypeMismatch(kind: VaultKind) throws {
        let vault = try kind.make(directory)
        try vault.set("not a number", for: SecretKey<String>("value"))
        #expect(throws: VaultError.self) { try vault.get(SecretKey<Int>("value")) }
        do {
            _ = try vault.get(SecretKey<Int>("value"))
        } catch let error as VaultError {
            guard case .typeMismatch(let message) = error else {
                Issue.record("expected typeMismatch, got \(error)")
                return
            }
            #expect(!message.contains("not a number"))
        }
    }

    @Test(arguments: VaultKind.all)
    func updateIsAReadModifyWriteInOneTransaction(kind: VaultKind) throws {
        struct Refused: Error {}
        let vault = try kind.make(directory)
        let counter = SecretKey<Int>("counter")
        #expect(try vault.update(counter) { ($0 ?? 0) + 1 } == 1)
        #expect(try vault.update(counter) { ($0 ?? 0) + 1 } == 2)
        #expect(throws: Refused.self) { try vault.update(counter) { _ in throw Refused() } }
        #expect(try vault.get(counter) == 2)
    }

    @Test(arguments: VaultKind.all)
    func lockWipesKeysAndEveryOperationSaysLocked(kind: VaultKind) throws {
        let vault = try kind.make(directory)
        let key = SecretKey<String>("k")
        try vault.set("v", for: key)
        #expect(!vault.isLocked)
        vault.lock()
        #expect(vault.isLocked)
        #expect(throws: VaultError.locked) { try vault.get(key) }
        #expect(throws: VaultError.locked) { try vault.set("w", for: key) }
        #expect(throws: VaultError.locked) { try vault.contains(key) }
        #expect(throws: VaultError.locked) { try vault.remove(key) }
        #expect(throws: VaultError.locked) { try vault.removeAll() }
        #expect(throws: VaultError.locked) { try vault.update(key) { $0 ?? "" } }
        #expect(throws: VaultError.locked) { try vault.verify() }
        #expect(throws: VaultError.invalidCredentials) { try vault.unlock(.passphrase("wrong")) }
        #expect(vault.isLocked)
        try vault.unlock(VaultKind.unlock)
        #expect(try vault.get(key) == "v")
    }

    @Test(arguments: VaultKind.all)
    func changeUnlockRekeysEveryRecordInOneWrite(kind: VaultKind) throws {
        let vault = try kind.make(directory)
        try vault.set("kept", for: SecretKey<String>("k"))
        let before = try vault.verify()
        try vault.changeUnlock(from: VaultKind.unlock, to: .passphrase("new passphrase"))
        #expect(throws: VaultError.invalidCredentials) {
            try vault.changeUnlock(from: VaultKind.unlock, to: .passphrase("third"))
        }
        vault.lock()
        #expect(throws: VaultError.invalidCredentials) { try vault.unlock(VaultKind.unlock) }
        try vault.unlock(.passphrase("new passphrase"))
        #expect(try vault.get(SecretKey<String>("k")) == "kept")
        let after = try vault.verify()
        #expect(after.generation == before.generation + 1)  // one write: slots and records re-keyed together
        #expect(after.authenticatedRecordCount == before.authenticatedRecordCount)
        #expect(throws: VaultError.invalidArgument("the passphrase is empty")) {
            try vault.changeUnlock(from: .passphrase("new passphrase"), to: .passphrase(""))
        }
    }

    @Test(arguments: VaultKind.all)
    func combinationsTheVaultCannotEnforceAreRefusedNotDowngraded(kind: VaultKind) throws {
        let vault = try kind.make(directory)
        let refused: [AccessControlFlags] = [
            [.devicePasscode],  // no factor enrolled yet
            [.userPresence],
            [.biometryAny, .devicePasscode],  // two constraints, no .or / .and
            [.or],  // a conjunction alone
            [.devicePasscode, .biometryAny, .or, .and],
            AccessControlFlags(rawValue: 1 << 20),  // unknown bit
        ]
        for flags in refused {
            let key = SecretKey<String>("guarded", policy: VaultPolicy(accessControl: flags))
            #expect(throws: VaultError.self) { try vault.set("secret", for: key) }
            do {
                try vault.set("secret", for: key)
            } catch let error as VaultError {
                guard case .unsupportedPolicy = error else {
                    Issue.record("\(flags.rawValue): expected unsupportedPolicy, got \(error)")
                    continue
                }
            }
            #expect(try vault.get(key) == nil)
        }
        #expect(throws: VaultError.invalidArgument("an access group name must be 1 to 1024 bytes")) {
            try vault.set("secret", for: SecretKey<String>("k", policy: VaultPolicy(accessGroup: "")))
        }
        #expect(try vault.verify().recordCount == 0)
    }

    @Test(arguments: VaultKind.all)
    func verifyCountsEveryRecordAndGeneration(kind: VaultKind) throws {
        let vault = try kind.make(directory)
        for index in 0..<10 { try vault.set("v\(index)", for: SecretKey<String>("k\(index)")) }
        try vault.remove(SecretKey<String>("k3"))
        let report = try vault.verify()
        #expect(report.recordCount == 9)
        #expect(report.authenticatedRecordCount == 9)
        #expect(report.generation == 11)
        #expect(report.formatVersion == 5)
    }

    /// `verify()` reads the records a page at a time: every page's records are counted and opened,
    /// and their index terms checked.
    @Test(arguments: VaultKind.all)
    func verifyChecksEveryPageOfALargeVault(kind: VaultKind) throws {
        let (vault, count) = try threePageVault(kind)
        let report = try vault.verify()
        #expect(report.recordCount == count + 3)
        #expect(report.authenticatedRecordCount == count + 3)
    }

    /// verify reads the stored index a page at a time: in a vault with more entries than two pages
    /// hold, each is accounted for once.
    @Test(arguments: VaultKind.all)
    func verifyAccountsForEveryEntryOfAnIndexOfManyPages(kind: VaultKind) throws {
        let termsPerToken = 10
        let count = 2 * IndexEntry.perPage / termsPerToken + 3
        let vault = try manyTermsVault(kind, count: count, termsPerToken: termsPerToken)
        #expect(try vault.verify().authenticatedRecordCount == count)
    }

    /// A vault of `count` tokens `t0`, `t1`, … with `termsPerToken` index terms each, named
    /// `n` = "token.term".
    private func manyTermsVault(_ kind: VaultKind, count: Int, termsPerToken: Int) throws -> Vault {
        let vault = try kind.make(directory)
        try vault.insertTokenRecordsForBenchmarking(
            (0..<count).map { token in
                BenchmarkTokenRecord(
                    id: "t\(token)", metadata: [1],
                    terms: (0..<termsPerToken).map { IndexTerm(field: "n", value: "\(token).\($0)") }, secret: [2])
            },
            policy: .default)
        return vault
    }

    /// A key rotation goes through the records a page at a time, once to check the digests and
    /// once to re-seal: every page's records open under the new keys alone, are filed again in
    /// the index under the new index key, and verify.
    @Test(arguments: VaultKind.all)
    func changeUnlockReSealsEveryPageOfALargeVault(kind: VaultKind) throws {
        let (vault, count) = try threePageVault(kind)
        let before = try vault.verify()

        try vault.changeUnlock(from: VaultKind.unlock, to: .passphrase("new passphrase"))
        vault.lock()
        #expect(throws: VaultError.invalidCredentials) { try vault.unlock(VaultKind.unlock) }
        try vault.unlock(.passphrase("new passphrase"))
        let after = try vault.verify()
        #expect(after.recordCount == count + 3)
        #expect(after.authenticatedRecordCount == count + 3)
        #expect(after.generation == before.generation + 1)
        for index in [0, Vault.rowsPerPage, count - 1] {
            let found = try #require(
                try vault.tokenRecordMetadata(matchingAll: [IndexTerm(field: "n", value: "\(index)")]))
            #expect(found.map(\.id) == ["t\(index)"])
            #expect(found.first?.metadata == [UInt8(index % 256)])
        }
        #expect(try vault.get(SecretKey<String>("k2")) == "v2")
    }

    /// A vault whose records fill three pages of ``Vault/rowsPerPage``: token records `t0`,
    /// `t1`, … (the metadata of `tN` is `[N % 256]`, its one term `n` = `N`) and items `k0` to
    /// `k2` (`v0` to `v2`).
    ///
    /// - Returns: The vault and how many token records it holds.
    private func threePageVault(_ kind: VaultKind) throws -> (Vault, count: Int) {
        let vault = try kind.make(directory)
        let count = 2 * Vault.rowsPerPage + 52
        try vault.insertTokenRecordsForBenchmarking(
            (0..<count).map {
                BenchmarkTokenRecord(
                    id: "t\($0)", metadata: [UInt8($0 % 256)], terms: [IndexTerm(field: "n", value: "\($0)")],
                    secret: [2])
            },
            policy: .default)
        for index in 0..<3 { try vault.set("v\(index)", for: SecretKey<String>("k\(index)")) }
        return (vault, count)
    }

    /// A key rotation files the index entries under the new keys in batches: one of a vault with
    /// more entries than a batch holds is filed whole, and every entry is found.
    @Test func changeUnlockFilesMoreIndexEntriesThanOneBatch() throws {
        let termsPerToken = 1_000
        let count = (1 << 18) / termsPerToken + 3  // a batch is `RecordReseal.entriesFiledTogether`, 2^18
        let vault = try manyTermsVault(.onDisk, count: count, termsPerToken: termsPerToken)
        try vault.changeUnlock(from: VaultKind.unlock, to: .passphrase("new passphrase"))
        #expect(try vault.verify().authenticatedRecordCount == count)
        for token in [0, count - 1] {
            let found = try vault.tokenRecordMetadata(matchingAll: [IndexTerm(field: "n", value: "\(token).999")])
            #expect(found?.map(\.id) == ["t\(token)"])
        }
    }

    @Test(arguments: VaultKind.all)
    func concurrentTasksNeverLoseAWrite(kind: VaultKind) async throws {
        let vault = try kind.make(directory)
        let counter = SecretKey<Int>("counter")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    for step in 0..<20 {
                        try vault.set("\(task)-\(step)", for: SecretKey<String>("task\(task)"))
                        try vault.update(counter) { ($0 ?? 0) + 1 }
                        #expect(try vault.get(SecretKey<String>("task\(task)")) == "\(task)-\(step)")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try vault.get(counter) == 16 * 20)
        #expect(try vault.verify().recordCount == 17)
    }

    /// More token records than wait unfiled in their own rows, so the index files them together,
    /// then changes and removals: every backend finds the same records and its index verifies.
    @Test(arguments: VaultKind.all)
    func theTokenIndexFindsTheSameRecordsOnEveryBackend(kind: VaultKind) throws {
        let vault = try kind.make(directory)
        for index in 0..<600 {
            let terms = [IndexTerm(field: "team", value: "t\(index % 3)"), IndexTerm(field: "n", value: "\(index)")]
            _ = try vault.insertTokenRecord(
                id: "token\(index)", metadata: [UInt8(index % 256)], terms: terms, secret: [1, 2, 3],
                policy: VaultPolicy(), defaultIfNone: false)
        }
        let teamOne = IndexTerm(field: "team", value: "t1")
        #expect(try vault.tokenRecordMetadata(matchingAll: [teamOne])?.count == 200)
        #expect(try vault.tokenRecordMetadata(matchingAll: [teamOne, IndexTerm(field: "n", value: "4")])?.count == 1)
        #expect(try vault.tokenRecordMetadata(matchingAll: [teamOne, IndexTerm(field: "n", value: "5")])?.count == 0)
        let moved = try #require(try vault.tokenRecordMetadata(id: "token4"))
        try vault.updateTokenRecord(
            id: "token4", metadata: [9], terms: [IndexTerm(field: "team", value: "t2")], secret: nil,
            expectedVersion: moved.version)
        try vault.removeTokenRecord(id: "token7")
        #expect(try vault.tokenRecordMetadata(id: "token7") == nil)
        #expect(try vault.tokenRecordMetadata(matchingAll: [teamOne])?.count == 198)
        #expect(try vault.tokenRecordMetadata(matchingAll: [IndexTerm(field: "team", value: "t2")])?.count == 201)
        #expect(try vault.verify().recordCount == 599)
    }
}

@Suite struct InMemoryVaultTests {
    @Test func aSlotlessVaultCannotBeUnlockedAgainAfterLock() throws {
        let vault = Vault.inMemory()
        try vault.set("v", for: SecretKey<String>("k"))
        #expect(try vault.verify().keySlotCount == 0)
        vault.lock()
        #expect(throws: VaultError.invalidCredentials) { try vault.unlock(.passphrase("anything")) }
    }

    @Test func inMemoryVaultsAreIndependent() throws {
        let first = Vault.inMemory()
        let second = Vault.inMemory()
        try first.set("one", for: SecretKey<String>("k"))
        #expect(try second.get(SecretKey<String>("k")) == nil)
        #expect(first.url == nil)
    }
}
