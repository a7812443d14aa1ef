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

    /// The old copy's header and slots with the current file's records and digest, as an attacker
    /// with both builds it: `unlock` (an old secret) opens nothing newer than `oldValue` in it. Either
    /// it does not open, or what it opens shows neither the re-written value nor the new item, and
    /// fails `verify()`.
    static func expectNothingNewer(
        oldCopy: URL, current: RawVaultFile, unlock: VaultUnlock, oldValue: String, in directory: TemporaryDirectory
    ) throws {
        let url = directory.file("mixed.db")
        try RawVaultFile.copy(oldCopy, to: url)
        let raw = try RawVaultFile(url)
        // The records table holds the digest row too.
        try raw.replaceRows(of: "records", with: current.rows(of: "records"))
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
        try RawVaultFile.copy(url, to: oldCopy)
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
        try Self.expectNothingNewer(
            oldCopy: oldCopy, current: current, unlock: TestVaults.unlock, oldValue: "old value", in: directory)
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
        try RawVaultFile.copy(url, to: oldCopy)
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

        try Self.expectNothingNewer(
            oldCopy: oldCopy, current: current, unlock: .keyFile(keyFile), oldValue: "old value", in: directory)
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
            id: "passcode token", metadata: [], terms: [], secret: Array("token".utf8), policy: passcode,
            defaultIfNone: false)

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

extension KeyRotationTests {
    @Test func changingAFactorRevokesItsOldProofForWhatIsStoredAfterwards() throws {
        let directory = TemporaryDirectory()
        let (vault, url) = try TestVaults.onDisk(in: directory)
        let oldKey = directory.file("old-factor.key")
        let newKey = directory.file("new-factor.key")
        try KeyFile.generate(at: oldKey)
        try KeyFile.generate(at: newKey)
        try vault.enrollFactor(.keyFile(oldKey))
        let protected = VaultPolicy(accessControl: .biometryAny)
        let earlier = SecretKey<String>("earlier", policy: protected)
        let later = SecretKey<String>("later", policy: protected)
        try vault.set("stored before", for: earlier)
        let raw = try RawVaultFile(url)
        let oldFactor = try #require(try raw.records().first { $0.kind == 2 })

        try vault.changeFactor(from: .keyFile(oldKey), to: .keyFile(newKey))
        try vault.set("stored after", for: later)
        let reopened = try Vault.open(at: url, unlock: TestVaults.unlock)
        #expect(
            try reopened.get(earlier, authenticationContext: KeyFileAuthenticationContext(keyFile: newKey))
                == "stored before")

        // The old factor record put back: the old key file opens its old class key, and that opens
        // no share of what was stored afterwards.
        try raw.execute(
            "UPDATE records SET sealed = ?, version = ? WHERE record_id = ?", .blob(oldFactor.sealed),
            .integer(oldFactor.version), .blob(oldFactor.id))
        let attacker = try Vault.open(at: url, unlock: TestVaults.unlock)
        let read = try? attacker.get(later, authenticationContext: KeyFileAuthenticationContext(keyFile: oldKey))
        #expect(read == nil)
    }

    @Test func aRotationKilledAtAnyPointLeavesTheOldOrTheNewEpoch() throws {
        let directory = TemporaryDirectory()
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        try KeyFile.generate(at: URL(fileURLWithPath: keyFile.path + ".alt"))
        let items = 300
        for index in 0..<items { try vault.set("value \(index)", for: SecretKey<String>("item \(index)")) }
        try vault.set("grouped value", for: SecretKey<String>("grouped", policy: VaultPolicy(accessGroup: "g")))
        _ = consume vault

        let kills = max(4, (ProcessInfo.processInfo.environment["TOKENVAULT_CRASH_KILLS"].flatMap(Int.init) ?? 40) / 4)
        var completed = 0
        for round in 0..<kills {
            // Every third round kills before the first rotation ends; the others after one or two
            // have committed, then at a random point of the next, however long a rotation takes here.
            let worker = try WorkerProcess.start(["rekey", url.path, keyFile.path, "-", "1000"])
            let output = WorkerProcess.kill(
                after: round % 3, linesStartingWith: "rekeyed ", delay: .milliseconds(Int.random(in: 0...200)), worker)
            completed += output.components(separatedBy: "rekeyed ").count - 1
            let opened = [keyFile, URL(fileURLWithPath: keyFile.path + ".alt")].compactMap {
                try? Vault.open(at: url, unlock: .keyFile($0))
            }
            try #require(opened.count == 1, "round \(round): \(opened.count) key files open the vault")
            let reopened = opened[0]
            let report = try reopened.verify()
            #expect(report.keySlotCount == 1)
            #expect(report.recordCount == report.authenticatedRecordCount)
            for index in 0..<items {
                #expect(try reopened.get(SecretKey<String>("item \(index)")) == "value \(index)")
            }
            #expect(
                try reopened.get(SecretKey<String>("grouped", policy: VaultPolicy(accessGroup: "g")))
                    == "grouped value")
        }
        #expect(completed > 0, "no rotation finished before a kill; the kills test nothing")
        print("rotation kills: \(kills) kills survived, \(completed) rotations completed between them")
    }
}
