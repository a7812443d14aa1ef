import Foundation
import TestSupport
import Testing
import TokenVault

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files other users could read or write are refused, as ssh refuses a loose private key, and
/// never silently chmod-ed; `allowsInsecurePermissions` is the explicit way round.
@Suite struct VaultPermissionTests {
    let directory = TemporaryDirectory()
    /// Each permission bit of group and others, alone, and the common umask results.
    static let looseModes = [0o640, 0o620, 0o610, 0o604, 0o602, 0o601, 0o644, 0o664, 0o666]
    static let allowing = Vault.Configuration(allowsInsecurePermissions: true)

    /// The file's bytes, and which of its SQLite side files exist.
    func snapshot(_ url: URL) throws -> (Data, [Bool]) {
        (
            try Data(contentsOf: url),
            ["-wal", "-shm"].map { FileManager.default.fileExists(atPath: url.path + $0) }
        )
    }

    @Test(arguments: looseModes)
    func aVaultOthersCanAccessIsRefusedAndLeftUntouched(mode: Int) throws {
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        try vault.set("v", for: SecretKey<String>("k"))
        _ = consume vault
        try setFileMode(mode, url)
        let before = try snapshot(url)
        #expect(throws: VaultError.insecurePermissions(url.path)) {
            try Vault.open(at: url, unlock: .keyFile(keyFile))
        }
        let after = try snapshot(url)
        #expect(after.0 == before.0 && after.1 == before.1)
        #expect(try fileMode(url) == mode)  // never fixed behind the user's back

        let message = VaultError.insecurePermissions(url.path).localizedDescription
        #expect(message.contains("chmod 600 \(url.path)"))

        let opened = try Vault.open(at: url, unlock: .keyFile(keyFile), configuration: Self.allowing)
        #expect(try opened.get(SecretKey<String>("k")) == "v")
        #expect(try fileMode(url) == mode)
    }

    @Test func privateModesOpen() throws {
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        try vault.set("v", for: SecretKey<String>("k"))
        for mode in [0o600, 0o700] {
            try setFileMode(mode, url)
            #expect(try Vault.open(at: url, unlock: .keyFile(keyFile)).get(SecretKey<String>("k")) == "v")
        }
    }

    /// Key files are private keys too: refused for opening, unlocking, composite unlock and new slots.
    @Test func aKeyFileOthersCanAccessIsRefusedWhereverItIsRead() throws {
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        try vault.set("v", for: SecretKey<String>("k"))
        try setFileMode(0o644, keyFile)
        let refused = VaultError.insecurePermissions(keyFile.path)
        #expect(throws: refused) { try Vault.open(at: url, unlock: .keyFile(keyFile)) }
        #expect(throws: refused) { try vault.unlock(.keyFile(keyFile)) }
        #expect(throws: refused) {
            try Vault.open(at: url, unlock: .composite(passphrase: TestVaults.passphrase, keyFile: keyFile))
        }
        let newKey = directory.file("new.key")
        try KeyFile.generate(at: newKey)
        try setFileMode(0o640, newKey)
        #expect(throws: VaultError.insecurePermissions(newKey.path)) { try vault.addUnlock(.keyFile(newKey)) }
        #expect(try fileMode(keyFile) == 0o644)

        let opened = try Vault.open(at: url, unlock: .keyFile(keyFile), configuration: Self.allowing)
        #expect(try opened.get(SecretKey<String>("k")) == "v")
        try opened.addUnlock(.keyFile(newKey))
        try setFileMode(0o600, keyFile)
        try setFileMode(0o600, newKey)
        #expect(try Vault.open(at: url, unlock: .keyFile(newKey)).get(SecretKey<String>("k")) == "v")
    }

    /// The device secret binds `...ThisDeviceOnly` items; one others can read is refused when it is
    /// loaded, and the vault's other items stay readable.
    @Test func aDeviceSecretOthersCanAccessIsRefused() throws {
        let secret = directory.file("device/device.secret")
        let configuration = Vault.Configuration(deviceSecretURL: secret)
        let keyFile = directory.file("vault.key")
        try KeyFile.generate(at: keyFile)
        let url = directory.file("vault.db")
        let vault = try Vault.create(at: url, unlock: .keyFile(keyFile), configuration: configuration)
        let bound = SecretKey<String>("bound", policy: VaultPolicy(accessibility: .afterFirstUnlockThisDeviceOnly))
        try vault.set("here only", for: bound)
        try vault.set("anywhere", for: SecretKey<String>("portable"))
        #expect(try fileMode(secret) == 0o600)
        #expect(try fileMode(secret.deletingLastPathComponent()) == 0o700)
        try setFileMode(0o604, secret)

        let reopened = try Vault.open(at: url, unlock: .keyFile(keyFile), configuration: configuration)
        #expect(throws: VaultError.insecurePermissions(secret.path)) { try reopened.get(bound) }
        #expect(throws: VaultError.insecurePermissions(secret.path)) {
            try reopened.set("again", for: SecretKey<String>("bound-2", policy: bound.policy))
        }
        #expect(try reopened.get(SecretKey<String>("portable")) == "anywhere")
        #expect(try fileMode(secret) == 0o604)

        var allowing = configuration
        allowing.allowsInsecurePermissions = true
        let tolerant = try Vault.open(at: url, unlock: .keyFile(keyFile), configuration: allowing)
        #expect(try tolerant.get(bound) == "here only")
    }

    /// Passphrase files are secrets too: one others can access is refused before it is read.
    @Test(arguments: looseModes)
    func aPassphraseFileOthersCanAccessIsRefused(mode: Int) throws {
        let file = directory.file("passphrase-\(mode)")
        try writePrivateFile("from a file\n", to: file)
        #expect(try Passphrase(contentsOf: file).secureBytes == Passphrase("from a file").secureBytes)
        try setFileMode(mode, file)
        #expect(throws: VaultError.insecurePermissions(file.path)) { try Passphrase(contentsOf: file) }
        let allowed = try Passphrase(contentsOf: file, allowsInsecurePermissions: true)
        #expect(allowed.secureBytes == Passphrase("from a file").secureBytes)
        #expect(try fileMode(file) == mode)
    }

    /// A FIFO (or anything but a regular file) at the vault's path is refused at once; SQLite would
    /// wait on it for ever.
    @Test func aVaultPathThatIsNotARegularFileIsRefusedWithoutBlocking() throws {
        let keyFile = directory.file("vault.key")
        try KeyFile.generate(at: keyFile)
        let fifo = directory.file("fifo.db")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let refusal = resultOnOwnThread(within: .seconds(60)) { () -> VaultError? in
            do {
                _ = try Vault.open(at: fifo, unlock: .keyFile(keyFile))
                return nil
            } catch {
                return error as? VaultError
            }
        }
        #expect(refusal.flatMap { $0 } == VaultError.unsupportedFormat("\(fifo.path) is not a regular file"))
    }
}
