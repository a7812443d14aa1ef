import Foundation
import TestSupport
import Testing
import TokenVault
import VaultCore

/// `backup(to:)` never lets another user see the copy: it is made in a private folder, is 0600 from
/// the start, and is published without replacing anything.
@Suite struct VaultBackupTests {
    let directory = TemporaryDirectory()

    /// A key-file vault holding one portable item and one bound to this device.
    func vault() throws -> (Vault, URL) {
        let keyFile = directory.file("vault.key")
        try KeyFile.generate(at: keyFile)
        let configuration = Vault.Configuration(deviceSecretURL: directory.file("device.secret"))
        let vault = try Vault.create(
            at: directory.file("vault.db"), unlock: .keyFile(keyFile), configuration: configuration)
        try vault.set("anywhere", for: SecretKey<String>("portable"))
        try vault.set(
            "here only",
            for: SecretKey<String>("bound", policy: VaultPolicy(accessibility: .afterFirstUnlockThisDeviceOnly)))
        return (vault, keyFile)
    }

    /// The names in a folder, hidden ones included.
    func names(in folder: URL) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
    }

    @Test func theCopyIsMadeInAPrivateFolderAndPublishedPrivate() throws {
        let (vault, keyFile) = try vault()
        let destinationFolder = directory.file("backups")
        let destination = destinationFolder.appendingPathComponent("vault-copy.db")
        var seen: [String: Int] = [:]
        try vault.backup(to: destination) { folder in
            #expect(folder.deletingLastPathComponent().path == destinationFolder.path)
            #expect(folder.lastPathComponent.hasPrefix(".vault-copy.db.backup-"))
            seen[folder.lastPathComponent] = try fileMode(folder)
            for name in try names(in: folder) { seen[name] = try fileMode(folder.appendingPathComponent(name)) }
            #expect(!FileManager.default.fileExists(atPath: destination.path))
        }
        #expect(seen.count == 2, "the folder and the copy: \(seen)")
        for (name, mode) in seen {
            #expect(mode == (name.hasPrefix(".") ? 0o700 : 0o600), "\(name) was \(String(mode, radix: 8))")
        }
        #expect(try fileMode(destination) == 0o600)
        #expect(try fileMode(destinationFolder) == 0o700)
        #expect(try names(in: destinationFolder) == ["vault-copy.db"], "the private folder is removed")

        let copy = try Vault.open(at: destination, unlock: .keyFile(keyFile))
        #expect(try copy.get(SecretKey<String>("portable")) == "anywhere")
        #expect(try copy.verify().recordCount == (try vault.verify().recordCount) - 1)
    }

    @Test func anExistingDestinationIsRefusedAndLeftAsItWas() throws {
        let (vault, _) = try vault()
        let destination = directory.file("taken.db")
        try Data("keep me".utf8).write(to: destination)
        let before = try names(in: directory.url)
        #expect(throws: VaultError.alreadyExists(destination.standardizedFileURL.path)) {
            try vault.backup(to: destination)
        }
        #expect(try Data(contentsOf: destination) == Data("keep me".utf8))
        #expect(try names(in: directory.url) == before)
    }

    /// A file that appears at the destination while the copy is written is not replaced: the copy
    /// is linked into place, which fails rather than clobbers.
    @Test func aDestinationThatAppearsMeanwhileIsNotReplaced() throws {
        let (vault, _) = try vault()
        let destination = directory.file("raced.db")
        let before = try names(in: directory.url)
        #expect(throws: VaultError.alreadyExists(destination.standardizedFileURL.path)) {
            try vault.backup(to: destination) { _ in try Data("someone else's".utf8).write(to: destination) }
        }
        #expect(try Data(contentsOf: destination) == Data("someone else's".utf8))
        #expect(try names(in: directory.url) == before.union(["raced.db"]), "the private folder is removed")
    }
}
