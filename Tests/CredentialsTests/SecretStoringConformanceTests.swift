import Foundation
import TestSupport
import Testing
import TokenVault

/// One behaviour for every `SecretStoring`: the vault itself, a `SecretStore` service in a vault,
/// and the in-memory double apps test with. The double runs the same tests, so it cannot drift.
@Suite struct SecretStoringConformanceTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case vault, secretStore, inMemory
        var testDescription: String { rawValue }
    }

    /// A fresh store of `kind`, with a way to lock it and to unlock it again.
    struct Subject {
        let store: any SecretStoring
        let lock: () -> Void
        let unlock: () throws -> Void
    }

    struct Profile: Codable, Sendable, Equatable {
        var name: String
        var roles: [String]
    }

    let directory = TemporaryDirectory()

    func subject(_ kind: Kind) throws -> Subject {
        switch kind {
        case .inMemory:
            let store = InMemorySecretStore()
            return Subject(store: store, lock: store.lock, unlock: store.unlock)
        case .vault, .secretStore:
            let (vault, _) = try TestVaults.onDisk(in: directory)
            let store: any SecretStoring = kind == .vault ? vault : SecretStore(vault: vault, service: "conformance")
            return Subject(
                store: store, lock: vault.lock, unlock: { try vault.unlock(.passphrase(TestVaults.passphrase)) })
        }
    }

    @Test(arguments: Kind.allCases) func typedValuesRoundTrip(_ kind: Kind) throws {
        let store = try subject(kind).store
        let profile = Profile(name: "Jane", roles: ["admin"])
        let expiry = Date(timeIntervalSince1970: 1_700_000_000)
        try store.set("at-123", for: SecretKey<String>("accessToken"))
        try store.set(expiry, for: SecretKey<Date>("expiry"))
        try store.set(profile, for: SecretKey<Profile>("profile"))
        #expect(try store.get(SecretKey<String>("accessToken")) == "at-123")
        #expect(try store.get(SecretKey<Date>("expiry")) == expiry)
        #expect(try store.get(SecretKey<Profile>("profile")) == profile)
    }

    @Test(arguments: Kind.allCases) func missingValuesAreNilAndRemovingThemIsNoError(_ kind: Kind) throws {
        let store = try subject(kind).store
        let key = SecretKey<String>("refreshToken")
        #expect(try store.get(key) == nil)
        #expect(try !store.contains(key))
        try store.remove(key)
        try store.set("first", for: key)
        try store.set("second", for: key)
        #expect(try store.contains(key))
        #expect(try store.get(key) == "second")
        try store.remove(key)
        #expect(try store.get(key) == nil)
        #expect(try !store.contains(key))
    }

    @Test(arguments: Kind.allCases) func aValueReadAsAnotherTypeIsATypeMismatch(_ kind: Kind) throws {
        let store = try subject(kind).store
        try store.set(42, for: SecretKey<Int>("count"))
        #expect(throws: VaultError.typeMismatch("the stored value does not decode as String")) {
            try store.get(SecretKey<String>("count"))
        }
        #expect(try store.get(SecretKey<Int>("count")) == 42)
    }

    @Test(arguments: Kind.allCases) func removeAllEmptiesTheStore(_ kind: Kind) throws {
        let store = try subject(kind).store
        try store.set("a", for: SecretKey<String>("one"))
        try store.set("b", for: SecretKey<String>("two"))
        try store.removeAll()
        #expect(try store.get(SecretKey<String>("one")) == nil)
        #expect(try !store.contains(SecretKey<String>("two")))
    }

    @Test(arguments: Kind.allCases) func aLockedStoreSaysLockedNeverMissingAndKeepsItsValues(_ kind: Kind) throws {
        let subject = try subject(kind)
        let key = SecretKey<String>("kept")
        try subject.store.set("value", for: key)
        subject.lock()
        #expect(throws: VaultError.locked) { try subject.store.get(key) }
        #expect(throws: VaultError.locked) { try subject.store.get(SecretKey<String>("absent")) }
        #expect(throws: VaultError.locked) { try subject.store.contains(key) }
        #expect(throws: VaultError.locked) { try subject.store.set("other", for: key) }
        #expect(throws: VaultError.locked) { try subject.store.removeAll() }
        try subject.unlock()
        #expect(try subject.store.get(key) == "value")
    }
}

/// What only `SecretStore` adds: a namespace per service.
@Suite struct SecretStoreNamespaceTests {
    let directory = TemporaryDirectory()

    @Test func deleteAllClearsOnlyItsOwnService() throws {
        let (vault, _) = try TestVaults.onDisk(in: directory)
        let mine = SecretStore(vault: vault, service: "com.example.mine")
        let theirs = SecretStore(vault: vault, service: "com.example.theirs")
        let prefixed = SecretStore(vault: vault, service: "com.example.mine.extra")
        try mine.set("1", forKey: "token")
        try mine.set(7, for: SecretKey<Int>("count"))
        try theirs.set("2", forKey: "token")
        try prefixed.set("3", forKey: "token")
        try vault.set("4", for: SecretKey<String>("vault-level"))
        try mine.deleteAll()
        #expect(try mine.keys().isEmpty)
        #expect(try theirs.string(forKey: "token") == "2")
        #expect(try prefixed.string(forKey: "token") == "3")
        #expect(try vault.get(SecretKey<String>("vault-level")) == "4")
    }

    @Test func aServiceNameWithTheSeparatorIsRefusedSoNamespacesCannotOverlap() throws {
        let (vault, _) = try TestVaults.onDisk(in: directory)
        let plain = SecretStore(vault: vault, service: "a")
        try plain.set("kept", forKey: "b\u{1F}c")
        let overlapping = SecretStore(vault: vault, service: "a\u{1F}b")
        let refused = SecretStoreError.vault(.invalidArgument("a secret store's service name cannot contain U+001F"))
        #expect(throws: refused) { try overlapping.set("x", forKey: "c") }
        #expect(throws: refused) { try overlapping.string(forKey: "c") }
        #expect(throws: refused) { try overlapping.deleteAll() }
        #expect(throws: VaultError.invalidArgument("a secret store's service name cannot contain U+001F")) {
            try overlapping.removeAll()
        }
        #expect(try plain.string(forKey: "b\u{1F}c") == "kept")
    }
}
