import Foundation
import TestSupport
import Testing
import TokenVault
import VaultCore

/// A vault file's write transaction starts from what the previous write of the same vault knew of
/// the rows only while nothing else committed to the file in between: another vault on the file
/// (another connection, as another process would be) makes it read everything again, and the
/// digests stay true whoever writes.
@Suite struct KnownRecordStateFileTests {
    let directory = TemporaryDirectory()

    @Test func aWriteRightAfterTheSameVaultsWriteStartsFromWhatItKnew() throws {
        let (vault, _, _) = try TestVaults.keyFileVault(in: directory)
        try vault.set("first", for: SecretKey<String>("a"))
        let before = try #require(vault.writesFromKnownStateForTesting)
        try vault.set("second", for: SecretKey<String>("b"))
        try vault.remove(SecretKey<String>("a"))
        let after = try #require(vault.writesFromKnownStateForTesting)
        #expect(after.reused == before.reused + 2)
        #expect(after.readAgain == before.readAgain)
        _ = try vault.verify()
    }

    @Test func anotherConnectionsWriteMakesTheNextWriteReadEverythingAgain() throws {
        let (first, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        let second = try Vault.open(at: url, unlock: .keyFile(keyFile))
        try first.set("one", for: SecretKey<String>("shared"))
        try second.set("two", for: SecretKey<String>("shared"))
        let before = try #require(first.writesFromKnownStateForTesting)
        try first.set("three", for: SecretKey<String>("other"))
        let after = try #require(first.writesFromKnownStateForTesting)
        #expect(after.readAgain == before.readAgain + 1)
        #expect(after.reused == before.reused)
        #expect(try first.get(SecretKey<String>("shared")) == "two")
        _ = try first.verify()
    }

    /// Two vaults on one file write in a random order, adding, replacing and removing records: had a
    /// write trusted what it knew after the other's commit, a digest, the largest id or a row it
    /// read would be stale, and `verify()` or a read would fail.
    @Test func twoVaultsWritingInTurnKeepEveryDigestAndValueTrue() throws {
        let (first, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        let second = try Vault.open(at: url, unlock: .keyFile(keyFile))
        var expected: [String: String] = [:]
        var generator = SystemRandomNumberGenerator()
        for step in 0..<120 {
            let writer = Bool.random(using: &generator) ? first : second
            let name = "item \(Int.random(in: 0..<12, using: &generator))"
            let group: String? = step % 5 == 0 ? "team" : nil
            let key = SecretKey<String>(name + (group ?? ""), policy: VaultPolicy(accessGroup: group))
            if expected[key.name] != nil, Int.random(in: 0..<3, using: &generator) == 0 {
                try writer.remove(key)
                expected[key.name] = nil
            } else {
                try writer.set("value \(step)", for: key)
                expected[key.name] = "value \(step)"
            }
        }
        for vault in [first, second] {
            let report = try vault.verify()
            #expect(report.recordCount == report.authenticatedRecordCount)
            for (name, value) in expected {
                let group: String? = name.hasSuffix("team") ? "team" : nil
                #expect(try vault.get(SecretKey<String>(name, policy: VaultPolicy(accessGroup: group))) == value)
            }
        }
        let counts = try #require(first.writesFromKnownStateForTesting)
        #expect(counts.reused > 0 && counts.readAgain > 0)
    }
}
