import Foundation
import TestSupport
import Testing
import TokenVault

/// `SecretStore.set(_:replacing:)`: many items in one vault transaction, all or none.
@Suite struct SecretStoreBulkSetTests {
    let directory = TemporaryDirectory()

    @Test func allItemsAreStoredInOneCall() throws {
        let (vault, _) = try TestVaults.onDisk(in: directory)
        let store = SecretStore(vault: vault, service: "tokenvault")
        try store.set([("a", Data("1".utf8)), ("b/c", Data("2".utf8))], replacing: false)
        #expect(try store.keys() == ["a", "b/c"])
        #expect(try store.string(forKey: "b/c") == "2")
    }

    @Test func aTakenKeyIsRefusedByNameAndNothingIsWritten() throws {
        let (vault, _) = try TestVaults.onDisk(in: directory)
        let store = SecretStore(vault: vault, service: "tokenvault")
        try store.set("old", forKey: "taken")
        #expect(throws: SecretStoreError.alreadyExists(keys: ["taken"])) {
            try store.set([("new", Data("n".utf8)), ("taken", Data("t".utf8))], replacing: false)
        }
        #expect(try store.keys() == ["taken"])
        #expect(try store.string(forKey: "taken") == "old")
        try store.set([("new", Data("n".utf8)), ("taken", Data("t".utf8))], replacing: true)
        #expect(try store.string(forKey: "taken") == "t")
        #expect(try store.keys() == ["new", "taken"])
    }

    @Test func theVaultChecksInsideItsTransactionToo() throws {
        // What the store's early check cannot see: a writer that came in between, as the vault
        // itself refuses a taken key within the transaction.
        let (vault, _) = try TestVaults.onDisk(in: directory)
        try vault.set("old", for: SecretKey<String>("taken"))
        #expect(throws: VaultError.alreadyExists("1 of the keys")) {
            try vault.set([(SecretKey<String>("fresh"), "f"), (SecretKey<String>("taken"), "t")], replacing: false)
        }
        #expect(try vault.get(SecretKey<String>("fresh")) == nil)
        #expect(try vault.get(SecretKey<String>("taken")) == "old")
        #expect(throws: VaultError.invalidArgument("a key is given twice")) {
            try vault.set([(SecretKey<String>("x"), "1"), (SecretKey<String>("x"), "2")], replacing: true)
        }
        #expect(try vault.get(SecretKey<String>("x")) == nil)
    }
}
