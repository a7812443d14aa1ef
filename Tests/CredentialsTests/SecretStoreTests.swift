import Foundation
import TestSupport
import Testing
import TokenVault

@Suite struct SecretStoreTests {
    let directory = TemporaryDirectory()

    @Test func storesStringsAndDataUnderAService() throws {
        let (vault, _) = try TestVaults.onDisk(in: directory)
        let store = SecretStore(vault: vault, service: "com.example.api")
        let other = SecretStore(vault: vault, service: "com.example.other")
        try store.set("sk_live_123", forKey: "stripe")
        try store.set(Data([0, 1, 2]), forKey: "blob")
        try other.set("elsewhere", forKey: "stripe")
        #expect(try store.string(forKey: "stripe") == "sk_live_123")
        #expect(try store.data(forKey: "blob") == Data([0, 1, 2]))
        #expect(try other.string(forKey: "stripe") == "elsewhere")
        #expect(try store.keys() == ["blob", "stripe"])
        #expect(try store.hasItem(forKey: "stripe"))
        #expect(throws: SecretStoreError.typeMismatch) {
            try store.set(Data([0xFF, 0xFE]), forKey: "binary")
            _ = try store.string(forKey: "binary")
        }
        try store.deleteAll()
        #expect(try store.keys().isEmpty)
        #expect(try other.keys() == ["stripe"])
    }

    @Test func lockedIsNeverReportedAsMissing() throws {
        let (vault, _) = try TestVaults.onDisk(in: directory)
        let store = SecretStore(vault: vault)
        try store.set("value", forKey: "present")
        #expect(throws: SecretStoreError.itemNotFound) { try store.string(forKey: "absent") }
        #expect(throws: SecretStoreError.itemNotFound) { try store.deleteItem(forKey: "absent") }
        #expect(try !store.hasItem(forKey: "absent"))
        vault.lock()
        #expect(throws: SecretStoreError.locked) { try store.string(forKey: "present") }
        #expect(throws: SecretStoreError.locked) { try store.string(forKey: "absent") }
        #expect(throws: SecretStoreError.locked) { try store.hasItem(forKey: "present") }
        #expect(throws: SecretStoreError.locked) { try store.deleteItem(forKey: "present") }
        #expect(throws: SecretStoreError.locked) { try store.keys() }
        try vault.unlock(TestVaults.unlock)
        #expect(try store.string(forKey: "present") == "value")
    }

    @Test func accessControlledItemsNeedTheStoresContext() throws {
        let (vault, _) = try TestVaults.onDisk(in: directory)
        let factor = directory.file("factor.key")
        try KeyFile.generate(at: factor)
        try vault.enrollFactor(.keyFile(factor))
        let writer = SecretStore(vault: vault, service: "s", accessControl: .biometryAny)
        try writer.set("guarded", forKey: "k")
        #expect(throws: SecretStoreError.interactionRequired) { try writer.string(forKey: "k") }
        #expect(try writer.keys() == ["k"])  // names are metadata
        let reader = SecretStore(
            vault: vault, service: "s", accessControl: .biometryAny,
            authenticationContext: KeyFileAuthenticationContext(keyFile: factor))
        #expect(try reader.string(forKey: "k") == "guarded")
        let wrongFactor = directory.file("wrong.key")
        try KeyFile.generate(at: wrongFactor)
        let impostor = SecretStore(
            vault: vault, service: "s", authenticationContext: KeyFileAuthenticationContext(keyFile: wrongFactor))
        #expect(throws: SecretStoreError.authenticationFailed) { try impostor.string(forKey: "k") }
    }
}
