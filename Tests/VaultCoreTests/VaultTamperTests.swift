import Foundation
import TestSupport
import Testing
import TokenVault

/// An attacker with write access to the file: every change to a sealed record is caught.
@Suite struct VaultTamperTests {
    let directory = TemporaryDirectory()

    func integrityError(_ body: () throws -> Void) -> Bool {
        do {
            try body()
            return false
        } catch let error as VaultError {
            if case .integrity = error { return true }
            return false
        } catch {
            return false
        }
    }

    @Test func flippingAnyByteOfASealedRecordIsAnIntegrityError() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        let key = SecretKey<String>("k")
        try vault.set("a secret worth protecting", for: key)
        let raw = try RawVaultFile(url)
        let record = try #require(try raw.records().first)
        for index in record.sealed.indices {
            var bytes = record.sealed
            bytes[index] ^= 0x01
            try raw.setSealed(bytes, forRecord: record.id)
            #expect(integrityError { _ = try vault.get(key) }, "byte \(index) of \(record.sealed.count)")
        }
        for length in [0, 1, 24, 39, 40, record.sealed.count - 1] {
            try raw.setSealed(Array(record.sealed.prefix(length)), forRecord: record.id)
            #expect(integrityError { _ = try vault.get(key) }, "truncated to \(length)")
        }
        try raw.setSealed(record.sealed + [0], forRecord: record.id)
        #expect(integrityError { _ = try vault.get(key) })
        #expect(integrityError { _ = try vault.verify() })
        try raw.setSealed(record.sealed, forRecord: record.id)
        #expect(try vault.get(key) == "a secret worth protecting")
        #expect(try vault.verify().authenticatedRecordCount == 1)
    }

    @Test func editingTheClearColumnsIsAnIntegrityError() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        let key = SecretKey<String>("k")
        try vault.set("v", for: key)
        let raw = try RawVaultFile(url)
        let record = try #require(try raw.records().first)
        try raw.execute("UPDATE records SET version = 9")
        #expect(integrityError { _ = try vault.get(key) })
        try raw.execute("UPDATE records SET version = ?", .integer(record.version))
        try raw.execute("UPDATE records SET policy = 0")  // claims whenUnlocked
        #expect(integrityError { _ = try vault.get(key) })
        try raw.execute("UPDATE records SET policy = ?", .integer(record.policy))
        try raw.execute("UPDATE records SET record_id = ?", .blob([UInt8](repeating: 7, count: 16)))
        #expect(integrityError { _ = try vault.get(key) })
        try raw.execute("UPDATE records SET record_id = ?", .blob(record.id))
        #expect(try vault.get(key) == "v")
    }

    @Test func swappingTwoRecordsIsAnIntegrityError() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        let first = SecretKey<String>("first")
        let second = SecretKey<String>("second")
        try vault.set("one", for: first)
        try vault.set("two", for: second)
        let raw = try RawVaultFile(url)
        let records = try raw.records()
        try raw.setSealed(records[1].sealed, forRecord: records[0].id)
        try raw.setSealed(records[0].sealed, forRecord: records[1].id)
        #expect(integrityError { _ = try vault.get(first) })
        #expect(integrityError { _ = try vault.get(second) })
        // Swapping the look-up tags (so each name points at the other's row) is caught too.
        try raw.setSealed(records[0].sealed, forRecord: records[0].id)
        try raw.setSealed(records[1].sealed, forRecord: records[1].id)
        try raw.execute("UPDATE records SET lookup = NULL")
        try raw.execute(
            "UPDATE records SET lookup = ? WHERE record_id = ?", .blob(records[1].lookup!), .blob(records[0].id))
        try raw.execute(
            "UPDATE records SET lookup = ? WHERE record_id = ?", .blob(records[0].lookup!), .blob(records[1].id))
        #expect(integrityError { _ = try vault.get(first) })
        #expect(integrityError { _ = try vault.verify() })
    }

    @Test func aRecordCopiedFromAnotherVaultIsAnIntegrityError() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory, name: "a.db")
        let (other, otherURL) = try TestVaults.onDisk(in: directory, name: "b.db")
        let key = SecretKey<String>("k")
        try vault.set("mine", for: key)
        try other.set("theirs", for: key)
        let mine = try #require(try RawVaultFile(url).records().first)
        try RawVaultFile(otherURL).setSealed(
            mine.sealed, forRecord: try #require(try RawVaultFile(otherURL).records().first).id)
        #expect(integrityError { _ = try other.get(key) })
    }

    @Test func verifyDetectsADeletedRow() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        for index in 0..<3 { try vault.set(index, for: SecretKey<Int>("k\(index)")) }
        let raw = try RawVaultFile(url)
        let victim = try #require(try raw.records().first)
        try raw.execute("DELETE FROM records WHERE record_id = ?", .blob(victim.id))
        #expect(integrityError { _ = try vault.verify() })
        // Putting it back exactly as it was restores a consistent vault.
        try raw.execute(
            "INSERT INTO records (record_id, kind, lookup, domain, policy, version, sealed) SELECT ?, ?, ?, domain, ?, ?, ? FROM records LIMIT 1",
            .blob(victim.id), .integer(victim.kind), .blob(victim.lookup!), .integer(victim.policy),
            .integer(victim.version), .blob(victim.sealed))
        #expect(try vault.verify().recordCount == 3)
    }

    @Test func verifyDetectsARowRolledBackToAnOlderVersion() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        let key = SecretKey<String>("refresh-token")
        try vault.set("old token", for: key)
        let raw = try RawVaultFile(url)
        let old = try #require(try raw.records().first)
        try vault.set("rotated token", for: key)
        try raw.execute(
            "UPDATE records SET version = ?, sealed = ? WHERE record_id = ?", .integer(old.version), .blob(old.sealed),
            .blob(old.id))
        // A single read cannot tell an old authentic row from the current one; verify can.
        #expect(try vault.get(key) == "old token")
        #expect(integrityError { _ = try vault.verify() })
    }

    @Test func aTamperedIntegrityDigestStopsWritesAndVerify() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        try vault.set("v", for: SecretKey<String>("k"))
        let raw = try RawVaultFile(url)
        var digest = try #require(try raw.blob("SELECT sealed FROM integrity"))
        digest[30] ^= 1
        try raw.execute("UPDATE integrity SET sealed = ?", .blob(digest))
        #expect(integrityError { try vault.set("w", for: SecretKey<String>("k")) })
        #expect(integrityError { _ = try vault.verify() })
        #expect(try vault.get(SecretKey<String>("k")) == "v")
        try raw.execute("DELETE FROM integrity")
        #expect(integrityError { _ = try vault.verify() })
    }

    @Test func aMissingHeaderIsAnIntegrityError() throws {
        let (_, url) = try TestVaults.onDisk(in: directory)
        try RawVaultFile(url).execute("DELETE FROM vault_header")
        #expect(integrityError { _ = try Vault.open(at: url, unlock: VaultKind.unlock) })
    }
}
