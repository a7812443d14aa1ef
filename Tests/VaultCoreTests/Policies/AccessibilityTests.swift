import Foundation
import TestSupport
import Testing
import TokenVault

/// One test per accessibility row of SECURITY.md's policy table. Each would fail if the policy
/// were a flag check: they look at the key material held, or move the file away from its keys.
@Suite struct AccessibilityTests {
    let directory = TemporaryDirectory()
    let clock = ManualClock()

    func configuration(device: String = "device.secret", idle: Duration? = .seconds(300), session: Duration? = nil)
        -> Vault.Configuration
    {
        Vault.Configuration(
            idleTimeout: idle, sessionTimeout: session, clock: clock, deviceSecretURL: directory.file(device))
    }

    func makeVault(_ configuration: Vault.Configuration, name: String = "vault.db") throws -> (Vault, URL) {
        let url = directory.file(name)
        let vault = try Vault.create(
            at: url, unlock: VaultKind.unlock, keyDerivation: TestVaults.fastKeyDerivation, configuration: configuration
        )
        return (vault, url)
    }

    let sessionItem = SecretKey<String>("session", policy: VaultPolicy(accessibility: .whenUnlocked))
    let daemonItem = SecretKey<String>("daemon", policy: VaultPolicy(accessibility: .afterFirstUnlock))

    @Test func idleAutoLockWipesWhenUnlockedKeysAndKeepsAfterFirstUnlock() throws {
        let (vault, _) = try makeVault(configuration())
        try vault.set("s", for: sessionItem)
        try vault.set("d", for: daemonItem)
        clock.advance(by: .seconds(299))
        #expect(try vault.get(sessionItem) == "s")  // activity resets the idle timer
        clock.advance(by: .seconds(299))
        #expect(try vault.get(sessionItem) == "s")
        clock.advance(by: .seconds(300))

        // The keys themselves are gone, master key included, so nothing can re-derive them.
        let held = try #require(vault.keyMaterialForTesting)
        #expect(!held.classes.contains(.whenUnlocked))
        #expect(!held.classes.contains(.whenUnlockedThisDeviceOnly))
        #expect(held.classes.contains(.afterFirstUnlock))
        #expect(!held.hasMasterKey)
        #expect(!vault.isLocked)

        #expect(throws: VaultError.locked) { try vault.get(sessionItem) }
        #expect(throws: VaultError.locked) { try vault.set("new", for: sessionItem) }
        #expect(throws: VaultError.locked) { try vault.addUnlock(.passphrase("another one")) }
        #expect(try vault.get(daemonItem) == "d")
        #expect(try vault.verify().recordCount == 2)  // the digest still covers the locked class

        try vault.unlock(VaultKind.unlock)
        #expect(try vault.get(sessionItem) == "s")
        #expect(try #require(vault.keyMaterialForTesting).hasMasterKey)
    }

    @Test func theAbsoluteTimeoutEndsEvenABusySession() throws {
        let (vault, _) = try makeVault(configuration(idle: nil, session: .seconds(3600)))
        try vault.set("s", for: sessionItem)
        for _ in 0..<59 {
            clock.advance(by: .seconds(60))
            #expect(try vault.get(sessionItem) == "s")
        }
        clock.advance(by: .seconds(60))
        #expect(throws: VaultError.locked) { try vault.get(sessionItem) }
        #expect(try vault.get(SecretKey<String>("none")) == nil)
    }

    @Test func lockWipesEveryClassIncludingAfterFirstUnlock() throws {
        let (vault, _) = try makeVault(configuration())
        try vault.set("d", for: daemonItem)
        vault.lock()
        #expect(vault.keyMaterialForTesting == nil)
        #expect(throws: VaultError.locked) { try vault.get(daemonItem) }
    }

    @Test func changingThePolicyOfAnItemReSealsIt() throws {
        let (vault, url) = try makeVault(configuration())
        let before = SecretKey<String>("token", policy: VaultPolicy(accessibility: .afterFirstUnlock))
        let after = SecretKey<String>("token", policy: VaultPolicy(accessibility: .whenUnlocked))
        try vault.set("v1", for: before)
        let oldRow = try #require(try RawVaultFile(url).records().first)
        try vault.set("v2", for: after)
        let newRow = try #require(try RawVaultFile(url).records().first)
        #expect(try RawVaultFile(url).records().count == 1)
        #expect(newRow.id == oldRow.id && newRow.version == oldRow.version + 1 && newRow.policy != oldRow.policy)
        clock.advance(by: .seconds(301))
        // Read through either key: the stored policy governs, not the caller's.
        #expect(throws: VaultError.locked) { try vault.get(before) }
        try vault.unlock(VaultKind.unlock)
        try vault.set("v3", for: before)
        clock.advance(by: .seconds(301))
        #expect(try vault.get(after) == "v3")
    }

    @Test func thisDeviceOnlyItemsNeedTheDeviceSecretTheyWereStoredWith() throws {
        let (vault, url) = try makeVault(configuration())
        let bound = SecretKey<String>("bound", policy: VaultPolicy(accessibility: .afterFirstUnlockThisDeviceOnly))
        let portable = SecretKey<String>("portable")
        try vault.set("here only", for: bound)
        try vault.set("anywhere", for: portable)
        let secret = directory.file("device.secret")
        #expect(try fileMode(secret) == 0o600)
        #expect(try Data(contentsOf: secret).count == 32)

        // The vault file copied to a machine without the device secret.
        let copy = directory.file("copied/vault.db")
        try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            try FileManager.default.copyItem(atPath: url.path + suffix, toPath: copy.path + suffix)
        }
        let elsewhere = try Vault.open(
            at: copy, unlock: VaultKind.unlock, configuration: configuration(device: "copied/device.secret"))
        #expect(throws: VaultError.unavailableOnThisDevice) { try elsewhere.get(bound) }
        #expect(try elsewhere.get(portable) == "anywhere")
        #expect(try elsewhere.verify().recordCount == 2)
        #expect(!FileManager.default.fileExists(atPath: directory.file("copied/device.secret").path))

        // A machine with a device secret of its own: the item still does not open.
        try elsewhere.set("theirs", for: SecretKey<String>("other", policy: bound.policy))
        #expect(FileManager.default.fileExists(atPath: directory.file("copied/device.secret").path))
        #expect(throws: VaultError.unavailableOnThisDevice) { try elsewhere.get(bound) }

        // Back on the original machine everything opens.
        #expect(try vault.get(bound) == "here only")
    }

    @Test func whenUnlockedThisDeviceOnlyEndsWithTheSession() throws {
        let (vault, _) = try makeVault(configuration())
        let key = SecretKey<String>("k", policy: VaultPolicy(accessibility: .whenUnlockedThisDeviceOnly))
        try vault.set("v", for: key)
        clock.advance(by: .seconds(301))
        #expect(throws: VaultError.locked) { try vault.get(key) }
    }

    @Test func whenPasscodeSetNeedsAPassphraseSlotAndDiesWithTheLast() throws {
        let passcodeItem = SecretKey<String>(
            "pin-protected", policy: VaultPolicy(accessibility: .whenPasscodeSetThisDeviceOnly))
        // A vault opened by key file alone has no passcode: refused, not downgraded.
        let keyFile = directory.file("k.key")
        try KeyFile.generate(at: keyFile)
        let keyFileVault = try Vault.create(
            at: directory.file("kf.db"), unlock: .keyFile(keyFile), configuration: configuration())
        #expect(throws: VaultError.self) { try keyFileVault.set("x", for: passcodeItem) }
        #expect(try #require(keyFileVault.keyMaterialForTesting).hasPasscodeRoot == false)

        let (vault, url) = try makeVault(configuration())
        try vault.set("secret", for: passcodeItem)
        try vault.set("kept", for: SecretKey<String>("plain"))
        try vault.addUnlock(.keyFile(keyFile))

        // Unlocked through the key-file slot, the passcode class key is simply not there.
        let viaKeyFile = try Vault.open(at: url, unlock: .keyFile(keyFile), configuration: configuration())
        #expect(try #require(viaKeyFile.keyMaterialForTesting).hasPasscodeRoot == false)
        #expect(throws: VaultError.locked) { try viaKeyFile.get(passcodeItem) }
        #expect(try viaKeyFile.get(SecretKey<String>("plain")) == "kept")

        // Removing the last passphrase slot destroys the items whose key only it held.
        try vault.removeUnlock(VaultKind.unlock)
        #expect(try vault.keySlots().map(\.kind) == [.keyFile])
        #expect(try viaKeyFile.get(passcodeItem) == nil)
        #expect(try viaKeyFile.get(SecretKey<String>("plain")) == "kept")
        #expect(try viaKeyFile.verify().recordCount == 1)
        #expect(throws: VaultError.self) { try viaKeyFile.set("again", for: passcodeItem) }
    }
}
