import Foundation
import TestSupport
import Testing
import TokenVault

@Suite struct AccessGroupTests {
    let directory = TemporaryDirectory()

    func item(_ group: String?) -> SecretKey<String> {
        SecretKey<String>("token", policy: VaultPolicy(accessGroup: group))
    }

    @Test func aScopedKeyFileReadsOnlyItsGroups() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        try vault.set("shared", for: item("com.example.shared"))
        try vault.set("private", for: item("com.example.private"))
        try vault.set("default", for: item(nil))
        let scopedKey = directory.file("shared.key")
        try KeyFile.generate(at: scopedKey)
        try vault.addUnlock(.keyFile(scopedKey), accessGroups: ["com.example.shared"])
        #expect(try vault.keySlots().map(\.isScoped).sorted { !$0 && $1 } == [false, true])

        let scoped = try Vault.open(at: url, unlock: .keyFile(scopedKey))
        // Key separation: the scoped unlock holds no master key and only its group's keys.
        let held = try #require(scoped.keyMaterialForTesting)
        #expect(!held.hasMasterKey)
        #expect(held.scope == ["com.example.shared"])

        #expect(try scoped.get(item("com.example.shared")) == "shared")
        let denied = VaultError.accessDenied("this unlock is scoped to other access groups")
        #expect(throws: denied) { try scoped.get(item("com.example.private")) }
        #expect(throws: denied) { try scoped.get(item(nil)) }
        #expect(throws: denied) { try scoped.contains(item("com.example.private")) }
        #expect(throws: denied) { try scoped.set("x", for: item("com.example.private")) }
        #expect(throws: denied) { try scoped.remove(item("com.example.private")) }
        #expect(throws: VaultError.locked) { try scoped.addUnlock(.passphrase("escalate")) }

        // It writes its own group, and removeAll reaches only that group.
        try scoped.set("updated", for: item("com.example.shared"))
        try scoped.removeAll()
        #expect(try vault.get(item("com.example.shared")) == nil)
        #expect(try vault.get(item("com.example.private")) == "private")
        #expect(try vault.get(item(nil)) == "default")
        let total = try vault.verify().recordCount
        #expect(try scoped.verify().recordCount == total)
    }

    @Test func theSameNameInTwoGroupsIsTwoItemsUnderTwoKeys() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        try vault.set("a", for: item("group.a"))
        try vault.set("b", for: item("group.b"))
        #expect(try vault.get(item("group.a")) == "a")
        #expect(try vault.get(item("group.b")) == "b")
        let rows = try RawVaultFile(url).records().filter { $0.kind == 1 }
        #expect(rows.count == 2)
        // Swapping the two blobs fails: each group's key and domain are bound into its record.
        try RawVaultFile(url).setSealed(rows[1].sealed, forRecord: rows[0].id)
        try RawVaultFile(url).setSealed(rows[0].sealed, forRecord: rows[1].id)
        #expect(throws: VaultError.self) { try vault.get(item("group.a")) }
        #expect(throws: VaultError.self) { try vault.get(item("group.b")) }
    }

    @Test func groupNamesAreNotStoredInClear() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        let group = "com.example.very-recognisable-group"
        try vault.set("v", for: item(group))
        let scopedKey = directory.file("g.key")
        try KeyFile.generate(at: scopedKey)
        try vault.addUnlock(.keyFile(scopedKey), accessGroups: [group])
        for suffix in ["", "-wal"] {
            guard let contents = FileManager.default.contents(atPath: url.path + suffix) else { continue }
            #expect(contents.range(of: Data(group.utf8)) == nil)
        }
        // The item, the group directory and the scoped slot's group list.
        #expect(try vault.verify().authenticatedRecordCount == 3)
    }

    @Test func scopedSlotsAreRefusedWithoutGroupsOrFullAccess() throws {
        let (vault, _) = try TestVaults.onDisk(in: directory)
        let keyFile = directory.file("x.key")
        try KeyFile.generate(at: keyFile)
        #expect(throws: VaultError.invalidArgument("a scoped slot needs a group")) {
            try vault.addUnlock(.keyFile(keyFile), accessGroups: [])
        }
        #expect(throws: VaultError.invalidArgument("this is the last key slot with full access")) {
            try vault.removeUnlock(VaultKind.unlock)
        }
    }
}
