import Foundation
import TestSupport
import Testing
import TokenVault
import VaultStorage

/// Revoking an unlock rotates the master key: the old secret, even with earlier bytes of the file,
/// reads nothing written or re-written afterwards, and `verify()` reports an old slot put back.
@Suite struct KeyRotationTests {
    static let newPassphrase = VaultUnlock.passphrase("a different passphrase entirely")
    static let before = SecretKey<String>("written before")
    static let after = SecretKey<String>("written after")

    /// The file and its write-ahead log as they are now: what a backup or a thief takes.
    static func snapshot(_ url: URL, to copy: URL) throws {
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            try FileManager.default.copyItem(atPath: url.path + suffix, toPath: copy.path + suffix)
        }
    }

    /// `unlock` opens nothing newer than `oldValue` in `url`: either it does not open, or what it
    /// opens shows neither the re-written value nor the new item, and fails `verify()`.
    static func expectNothingNewer(_ url: URL, unlock: VaultUnlock, oldValue: String) {
        guard let vault = try? Vault.open(at: url, unlock: unlock) else { return }
        let rewritten = (try? vault.get(before)) ?? nil
        #expect(rewritten == nil || rewritten == oldValue)
        #expect(((try? vault.get(after)) ?? nil) == nil)
        #expect(throws: VaultError.self) { try vault.verify() }
    }

    @Test func changingThePassphraseRevokesItAgainstAnOldCopy() throws {
        let directory = TemporaryDirectory()
        let (vault, url) = try TestVaults.onDisk(in: directory)
        try vault.set("old value", for: Self.before)
        let oldCopy = directory.file("old.db")
        try Self.snapshot(url, to: oldCopy)
        let oldSlots = try RawVaultFile(url).rows(of: "key_slots")

        try vault.changeUnlock(
            from: TestVaults.unlock, to: Self.newPassphrase, keyDerivation: TestVaults.fastKeyDerivation)
        try vault.set("new value", for: Self.before)
        try vault.set("new item", for: Self.after)
        #expect(try vault.verify().keySlotCount == 1)

        // The old slot row put back into the current file.
        let current = try RawVaultFile(url)
        try current.insertRows(into: "key_slots", oldSlots)
        #expect(throws: VaultError.invalidCredentials) { try Vault.open(at: url, unlock: TestVaults.unlock) }
        let reopened = try Vault.open(at: url, unlock: Self.newPassphrase)
        #expect(try reopened.get(Self.after) == "new item")
        do {
            _ = try reopened.verify()
            Issue.record("verify() passed with an old key slot put back")
        } catch VaultError.integrity(let detail) {
            #expect(detail.contains("key slot"))
        }

        // The old copy's header and slots with the current records and digest.
        let mixed = directory.file("mixed.db")
        try Self.snapshot(oldCopy, to: mixed)
        let raw = try RawVaultFile(mixed)
        for table in ["records", "integrity"] { try raw.replaceRows(of: table, with: current.rows(of: table)) }
        Self.expectNothingNewer(mixed, unlock: TestVaults.unlock, oldValue: "old value")
        // The old copy itself still opens with the old passphrase, as it was then.
        #expect(try Vault.open(at: oldCopy, unlock: TestVaults.unlock).get(Self.before) == "old value")
    }

    @Test func removingAKeyFileSlotRevokesIt() throws {
        let directory = TemporaryDirectory()
        let (vault, url) = try TestVaults.onDisk(in: directory)
        let keyFile = directory.file("second.key")
        try KeyFile.generate(at: keyFile)
        try vault.addUnlock(.keyFile(keyFile))
        try vault.set("old value", for: Self.before)
        let oldCopy = directory.file("old.db")
        try Self.snapshot(url, to: oldCopy)
        let oldSlots = try RawVaultFile(url).rows(of: "key_slots")

        try vault.removeUnlock(.keyFile(keyFile))
        try vault.set("new value", for: Self.before)
        try vault.set("new item", for: Self.after)

        let current = try RawVaultFile(url)
        let kept = try current.rows(of: "key_slots").map { $0[0] }
        let removed = try #require(oldSlots.first { !kept.contains($0[0]) })
        try current.insertRows(into: "key_slots", [removed])
        #expect(throws: VaultError.invalidCredentials) { try Vault.open(at: url, unlock: .keyFile(keyFile)) }
        #expect(throws: VaultError.self) { try Vault.open(at: url, unlock: TestVaults.unlock).verify() }

        let mixed = directory.file("mixed.db")
        try Self.snapshot(oldCopy, to: mixed)
        let raw = try RawVaultFile(mixed)
        for table in ["records", "integrity"] { try raw.replaceRows(of: table, with: current.rows(of: table)) }
        Self.expectNothingNewer(mixed, unlock: .keyFile(keyFile), oldValue: "old value")
    }

    @Test func anOpenVaultFollowsARotationAndIsLockedWhenItsSlotIsRevoked() throws {
        let directory = TemporaryDirectory()
        let (owner, url) = try TestVaults.onDisk(in: directory)
        let keyFile = directory.file("service.key")
        try KeyFile.generate(at: keyFile)
        try owner.addUnlock(.keyFile(keyFile))
        let service = try Vault.open(at: url, unlock: .keyFile(keyFile))
        try service.set("from the service", for: Self.before)

        try owner.changeUnlock(
            from: TestVaults.unlock, to: Self.newPassphrase, keyDerivation: TestVaults.fastKeyDerivation)
        #expect(try service.get(Self.before) == "from the service")
        try service.set("after the rotation", for: Self.after)
        #expect(try owner.get(Self.after) == "after the rotation")

        try owner.removeUnlock(.keyFile(keyFile))
        #expect(throws: VaultError.locked) { try service.get(Self.before) }
        #expect(service.isLocked)
        #expect(try owner.verify().keySlotCount == 1)
    }

    @Test func aScopedSlotKeepsItsGroupsAcrossRotations() throws {
        let directory = TemporaryDirectory()
        let (vault, url) = try TestVaults.onDisk(in: directory)
        let scoped = VaultUnlock.passphrase("team a passphrase")
        try vault.addUnlock(scoped, keyDerivation: TestVaults.fastKeyDerivation, accessGroups: ["teamA"])
        let teamA = SecretKey<String>("shared", policy: VaultPolicy(accessGroup: "teamA"))
        let teamB = SecretKey<String>("shared", policy: VaultPolicy(accessGroup: "teamB"))
        try vault.set("a", for: teamA)
        try vault.set("b", for: teamB)

        try vault.changeUnlock(
            from: TestVaults.unlock, to: Self.newPassphrase, keyDerivation: TestVaults.fastKeyDerivation)
        let team = try Vault.open(at: url, unlock: scoped)
        #expect(try team.get(teamA) == "a")
        #expect(throws: VaultError.accessDenied("this unlock is scoped to other access groups")) {
            try team.get(teamB)
        }
        // Revoking the scoped slot needs full access, and then it opens nothing.
        try vault.removeUnlock(scoped)
        #expect(throws: VaultError.invalidCredentials) { try Vault.open(at: url, unlock: scoped) }
        #expect(try vault.verify().keySlotCount == 1)
    }

    @Test func removingTheLastPassphraseSlotDestroysPasscodeTokensToo() throws {
        let directory = TemporaryDirectory()
        let (vault, _) = try TestVaults.onDisk(in: directory)
        let keyFile = directory.file("second.key")
        try KeyFile.generate(at: keyFile)
        try vault.addUnlock(.keyFile(keyFile))
        let passcode = VaultPolicy(accessibility: .whenPasscodeSetThisDeviceOnly)
        try vault.set("item", for: SecretKey<String>("passcode item", policy: passcode))
        _ = try vault.insertTokenRecord(
            id: "passcode token", metadata: [], secret: Array("token".utf8), policy: passcode, defaultIfNone: false)

        try vault.removeUnlock(TestVaults.unlock)
        let report = try vault.verify()
        #expect(report.recordCount == report.authenticatedRecordCount)
        #expect(try vault.tokenRecordMetadata(id: "passcode token") == nil)
        #expect(try vault.allTokenRecordMetadata().isEmpty)
    }

    @Test func junkSlotsAtTheHighestCostDoNotStallUnlocking() throws {
        let directory = TemporaryDirectory()
        let (vault, url) = try TestVaults.onDisk(in: directory)
        try vault.set("value", for: Self.before)
        let raw = try RawVaultFile(url)
        let real = try #require(try raw.rows(of: "key_slots").first)
        // Columns: slot_id, kind, scoped, salt, ops_limit, mem_limit, ...
        let junk = (0..<1000).map { index -> [SQLiteValue] in
            var row = real
            row[0] = .blob(
                Array(withUnsafeBytes(of: UInt64(index).bigEndian, Array.init)) + [UInt8](repeating: 0, count: 8))
            row[4] = .integer(16)
            row[5] = .integer(1024 * 1024 * 1024)
            return row
        }
        try raw.insertRows(into: "key_slots", junk)
        // The real slot is the cheapest, so it is tried first: one Argon2 run at the floor cost.
        #expect(try Vault.open(at: url, unlock: TestVaults.unlock).get(Self.before) == "value")
        #expect(throws: VaultError.invalidArgument("a vault holds at most 32 key slots")) {
            try vault.addUnlock(.passphrase("one more"), keyDerivation: TestVaults.fastKeyDerivation)
        }
    }
}
