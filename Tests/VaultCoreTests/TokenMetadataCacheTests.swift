import Foundation
import Locking
import TestSupport
import Testing
import TokenVault
import VaultCore

/// The unlock session's cache of token metadata: what a listing returns is what the file holds now,
/// whoever wrote it, and the cache holds only what the current unlock can read.
@Suite struct TokenMetadataCacheTests {
    let directory = TemporaryDirectory()

    /// Stores a token record with `metadata` as its metadata bytes.
    static func insert(
        _ id: String, metadata: String = "tags", policy: VaultPolicy = .default, into vault: Vault
    ) throws {
        _ = try vault.insertTokenRecord(
            id: id, metadata: Array(metadata.utf8), terms: [], secret: Array("secret of \(id)".utf8), policy: policy,
            defaultIfNone: false)
    }

    /// The listing as id to metadata text.
    static func listing(_ vault: Vault) throws -> [String: String] {
        Dictionary(
            uniqueKeysWithValues: try vault.allTokenRecordMetadata().map {
                ($0.id, String(decoding: $0.metadata, as: UTF8.self))
            })
    }

    @Test func anotherInstanceOnTheFileSeesEveryWriteOnItsNextListing() throws {
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        let other = try Vault.open(at: url, unlock: .keyFile(keyFile))
        try Self.insert("one", into: vault)
        #expect(try Self.listing(other) == ["one": "tags"])
        #expect(other.cachedTokenIDsForTesting == ["one"])

        try Self.insert("two", metadata: "second", into: vault)
        #expect(try Self.listing(other) == ["one": "tags", "two": "second"])

        let version = try #require(try vault.tokenRecordMetadata(id: "one")).version
        let next = try vault.updateTokenRecord(
            id: "one", metadata: Array("changed".utf8), terms: [], secret: nil, expectedVersion: version)
        let listed = try other.allTokenRecordMetadata()
        #expect(listed.first { $0.id == "one" }.map { String(decoding: $0.metadata, as: UTF8.self) } == "changed")
        #expect(listed.first { $0.id == "one" }?.version == next)

        try vault.removeTokenRecord(id: "two")
        #expect(try Self.listing(other) == ["one": "changed"])
        #expect(other.cachedTokenIDsForTesting == ["one"])

        // Its own writes, which SQLite's data version does not count, show at once too.
        try Self.insert("three", into: other)
        #expect(try Self.listing(other) == ["one": "changed", "three": "tags"])
        #expect(try Self.listing(vault) == ["one": "changed", "three": "tags"])
    }

    @Test func idsAreListedInTheListingsOrderAndFollowAnotherInstancesWrites() throws {
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        let other = try Vault.open(at: url, unlock: .keyFile(keyFile))
        for id in ["c", "a", "b"] { try Self.insert(id, into: vault) }
        #expect(try other.tokenRecordIDs() == ["c", "a", "b"])
        #expect(try other.tokenRecordIDs() == other.allTokenRecordMetadata().map(\.id))

        try vault.removeTokenRecord(id: "a")
        try Self.insert("d", into: vault)
        #expect(try other.tokenRecordIDs() == ["c", "b", "d"])

        other.lock()
        #expect(throws: VaultError.locked) { try other.tokenRecordIDs() }
    }

    /// The listing in order, as id and metadata text.
    static func orderedListing(_ vault: Vault) throws -> [String] {
        try vault.allTokenRecordMetadata().map { "\($0.id)=\(String(decoding: $0.metadata, as: UTF8.self))" }
    }

    @Test func aRemovalAnUpdateAndAnInsertionElsewhereShowTogetherInOrder() throws {
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        let other = try Vault.open(at: url, unlock: .keyFile(keyFile))
        for index in 0..<6 { try Self.insert("t\(index)", into: vault) }
        #expect(try other.tokenRecordIDs() == ["t0", "t1", "t2", "t3", "t4", "t5"])

        try vault.removeTokenRecord(id: "t2")
        let version = try #require(try vault.tokenRecordMetadata(id: "t4")).version
        try vault.updateTokenRecord(
            id: "t4", metadata: Array("changed".utf8), terms: [], secret: nil, expectedVersion: version)
        try Self.insert("t6", into: vault)
        try vault.removeTokenRecord(id: "t0")
        #expect(
            try Self.orderedListing(other) == ["t1=tags", "t3=tags", "t4=changed", "t5=tags", "t6=tags"])
        #expect(try other.tokenRecordIDs() == ["t1", "t3", "t4", "t5", "t6"])
    }

    @Test func manyChangesElsewhereShowInOrder() throws {
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        let other = try Vault.open(at: url, unlock: .keyFile(keyFile))
        for index in 0..<30 { try Self.insert("t\(index)", into: vault) }
        #expect(try other.tokenRecordIDs().count == 30)

        for index in stride(from: 0, to: 30, by: 3) { try vault.removeTokenRecord(id: "t\(index)") }
        for index in stride(from: 1, to: 30, by: 6) {
            let version = try #require(try vault.tokenRecordMetadata(id: "t\(index)")).version
            try vault.updateTokenRecord(
                id: "t\(index)", metadata: Array("changed".utf8), terms: [], secret: nil, expectedVersion: version)
        }
        for index in 30..<45 { try Self.insert("t\(index)", into: vault) }
        let fresh = try Vault.open(at: url, unlock: .keyFile(keyFile))
        #expect(try Self.orderedListing(other) == Self.orderedListing(fresh))
        #expect(try Self.orderedListing(other).count == 35)
        #expect(try Self.orderedListing(other).filter { $0.hasSuffix("=changed") }.count == 5)
    }

    @Test func aRotationElsewhereIsFollowedAndTheListingReadAgain() throws {
        let (owner, url) = try TestVaults.onDisk(in: directory)
        let keyFile = directory.file("service.key")
        try KeyFile.generate(at: keyFile)
        try owner.addUnlock(.keyFile(keyFile))
        let service = try Vault.open(at: url, unlock: .keyFile(keyFile))
        try Self.insert("before", into: owner)
        #expect(try Self.listing(service) == ["before": "tags"])

        try owner.changeUnlock(
            from: TestVaults.unlock, to: .passphrase("a different passphrase entirely"),
            keyDerivation: TestVaults.fastKeyDerivation)
        try Self.insert("after", into: owner)
        #expect(try Self.listing(service) == ["before": "tags", "after": "tags"])
        #expect(Set(service.cachedTokenIDsForTesting) == ["before", "after"])

        // Revoked: the service is locked, and its cache went with its keys.
        try owner.removeUnlock(.keyFile(keyFile))
        #expect(throws: VaultError.locked) { try service.allTokenRecordMetadata() }
        #expect(service.cachedTokenIDsForTesting.isEmpty)
    }

    @Test func lockingEmptiesTheCache() throws {
        let (vault, _, keyFile) = try TestVaults.keyFileVault(in: directory)
        try Self.insert("one", into: vault)
        _ = try vault.allTokenRecordMetadata()
        #expect(vault.cachedTokenIDsForTesting == ["one"])

        vault.lock()
        #expect(vault.cachedTokenIDsForTesting.isEmpty)
        #expect(throws: VaultError.locked) { try vault.allTokenRecordMetadata() }

        try vault.unlock(.keyFile(keyFile))
        #expect(vault.cachedTokenIDsForTesting.isEmpty)
        #expect(try Self.listing(vault) == ["one": "tags"])
    }

    @Test func aScopedUnlockCachesOnlyItsGroups() throws {
        let team = try TwoTeamVault()
        let scoped = try team.openScoped()
        #expect(try scoped.allTokenRecordMetadata().map(\.id) == [team.teamA.id])
        #expect(scoped.cachedTokenIDsForTesting == [team.teamA.id])

        // New tokens of both groups, written by the full-access instance.
        try Self.insert("a2", policy: VaultPolicy(accessGroup: "teamA"), into: team.vault)
        try Self.insert("b2", policy: VaultPolicy(accessGroup: "teamB"), into: team.vault)
        #expect(try Set(scoped.allTokenRecordMetadata().map(\.id)) == [team.teamA.id, "a2"])
        #expect(Set(scoped.cachedTokenIDsForTesting) == [team.teamA.id, "a2"])
        #expect(try team.vault.allTokenRecordMetadata().count == 5)
    }

    @Test func aRecordWhoseClassLocksIsNoLongerServed() throws {
        let clock = ManualClock()
        let (writer, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        let vault = try Vault.open(
            at: url, unlock: .keyFile(keyFile), configuration: .init(idleTimeout: .seconds(60), clock: clock))
        try Self.insert("kept", policy: VaultPolicy(accessibility: .afterFirstUnlock), into: vault)
        try Self.insert("session", policy: VaultPolicy(accessibility: .whenUnlocked), into: vault)
        #expect(try Self.listing(vault) == ["kept": "tags", "session": "tags"])

        clock.advance(by: .seconds(61))
        #expect(throws: VaultError.locked) { try vault.allTokenRecordMetadata() }
        #expect(vault.cachedTokenIDsForTesting.isEmpty)

        // Without the session-class record (removed by an unlock that still holds its class), the
        // rest lists again.
        try writer.removeTokenRecord(id: "session")
        #expect(try Self.listing(vault) == ["kept": "tags"])
    }

    /// Counts its calls, to show each record is decoded once while unchanged.
    enum CountingDecoder: TokenMetadataDecoder {
        static let calls = Locked(0)

        static func decode(_ record: TokenRecordMetadata) throws -> String {
            calls.withLock { $0 += 1 }
            return String(decoding: record.metadata, as: UTF8.self)
        }
    }

    @Test func eachRecordIsDecodedOnceWhileUnchanged() throws {
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        let other = try Vault.open(at: url, unlock: .keyFile(keyFile))
        for index in 0..<5 { try Self.insert("t\(index)", metadata: "m\(index)", into: vault) }
        let before = CountingDecoder.calls.value
        #expect(try Set(vault.tokenMetadata(decodedBy: CountingDecoder.self)) == ["m0", "m1", "m2", "m3", "m4"])
        #expect(try vault.tokenMetadata(decodedBy: CountingDecoder.self).count == 5)
        #expect(CountingDecoder.calls.value - before == 5)

        // A change elsewhere: only the changed record is decoded again.
        let version = try #require(try other.tokenRecordMetadata(id: "t2")).version
        try other.updateTokenRecord(
            id: "t2", metadata: Array("new".utf8), terms: [], secret: nil, expectedVersion: version)
        #expect(try Set(vault.tokenMetadata(decodedBy: CountingDecoder.self)) == ["m0", "m1", "new", "m3", "m4"])
        #expect(CountingDecoder.calls.value - before == 6)
        // A write that changes no token leaves the decoded listing as it was.
        try other.set("value", for: SecretKey<String>("item"))
        #expect(try vault.tokenMetadata(decodedBy: CountingDecoder.self).count == 5)
        #expect(CountingDecoder.calls.value - before == 6)
    }

    /// Decodes to the same type as ``CountingDecoder``, other values.
    enum UppercasingDecoder: TokenMetadataDecoder {
        static func decode(_ record: TokenRecordMetadata) throws -> String {
            String(decoding: record.metadata, as: UTF8.self).uppercased()
        }
    }

    /// Decodes to another type.
    enum LengthDecoder: TokenMetadataDecoder {
        static func decode(_ record: TokenRecordMetadata) throws -> Int { record.metadata.count }
    }

    /// A first listing reads and opens the rows a page at a time, each page's over the cores: it
    /// lists every token in id order across the pages, on every kind of vault.
    @Test(arguments: VaultKind.all)
    func aFirstListingOfManyPagesListsEveryToken(kind: VaultKind) throws {
        let vault = try kind.make(directory)
        let ids = (0..<(2 * Vault.rowsPerPage + 52)).map { "t\($0)" }
        try vault.insertTokenRecordsForBenchmarking(
            ids.map { BenchmarkTokenRecord(id: $0, metadata: Array("m-\($0)".utf8), terms: [], secret: [1]) },
            policy: .default)
        #expect(try vault.tokenRecordIDs() == ids)
        #expect(try vault.tokenMetadata(decodedBy: UppercasingDecoder.self) == ids.map { "M-\($0.uppercased())" })
        #expect(
            try vault.allTokenRecordMetadata().map { String(decoding: $0.metadata, as: UTF8.self) }
                == ids.map { "m-\($0)" })
    }

    @Test func decodersUsedInTurnEachGetTheirOwnValues() throws {
        let (vault, _, _) = try TestVaults.keyFileVault(in: directory)
        for index in 0..<3 { try Self.insert("t\(index)", metadata: "m\(index)", into: vault) }
        #expect(try vault.tokenMetadata(decodedBy: CountingDecoder.self) == ["m0", "m1", "m2"])
        #expect(try vault.tokenMetadata(decodedBy: UppercasingDecoder.self) == ["M0", "M1", "M2"])
        #expect(try vault.tokenMetadata(decodedBy: LengthDecoder.self) == [2, 2, 2])

        // After a change the unchanged records still hold the last decoder's values.
        try Self.insert("t3", metadata: "long", into: vault)
        #expect(try vault.tokenMetadata(decodedBy: CountingDecoder.self) == ["m0", "m1", "m2", "long"])
        #expect(try vault.tokenMetadata(decodedBy: UppercasingDecoder.self) == ["M0", "M1", "M2", "LONG"])
        #expect(try vault.tokenMetadata(decodedBy: LengthDecoder.self) == [2, 2, 2, 4])
        #expect(try vault.allTokenRecordMetadata().map(\.id) == ["t0", "t1", "t2", "t3"])
    }

    @Test func anotherProcessesWritesShowOnTheNextListing() throws {
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        let storage = try VaultTokenStorage(vault: vault)
        #expect(try storage.allMetadata().isEmpty)

        let stored = try WorkerProcess.run(["store-credential", url.path, keyFile.path, "worker@example.com", "2"])
        #expect(stored.status == 0, "worker failed: \(stored.output)")
        let ids = stored.output.split(separator: "\n").prefix(2).map(String.init)
        #expect(try Set(storage.allIDs()) == Set(ids))
        #expect(try storage.allMetadata().allSatisfy { $0.tags == ["storedBy": "worker"] })

        let tagged = try WorkerProcess.run(["tag", url.path, keyFile.path, ids[0], "0"])
        #expect(tagged.status == 0, "worker failed: \(tagged.output)")
        let metadata = try storage.allMetadata()
        #expect(metadata.first { $0.id == ids[0] }?.tags["note"] == "set by the worker")
        #expect(metadata.first { $0.id == ids[1] }?.tags["note"] == nil)
    }
}
