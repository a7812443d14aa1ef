import Foundation
import TokenVault

/// Factories for vaults in tests, at costs that keep the suite fast.
public enum TestVaults {
    /// The cheapest Argon2id costs the vault accepts (its floor), so passphrase tests stay quick.
    public static let fastKeyDerivation = KeyDerivation.minimum

    /// A passphrase used across tests.
    public static let passphrase: Passphrase = "correct horse battery staple"
    /// ``passphrase`` as unlock material.
    public static let unlock = VaultUnlock.passphrase(passphrase)

    /// Creates a passphrase-protected vault file in `directory`.
    ///
    /// - Parameters:
    ///   - directory: Where to put it.
    ///   - name: The file name.
    /// - Returns: The unlocked vault and its file.
    public static func onDisk(in directory: TemporaryDirectory, name: String = "vault.db") throws -> (Vault, URL) {
        let url = directory.file(name)
        let vault = try Vault.create(
            at: url, unlock: .passphrase(passphrase), keyDerivation: fastKeyDerivation)
        return (vault, url)
    }

    /// Creates a key file in `directory` and a vault unlocked by it (no Argon2 cost at all).
    ///
    /// - Parameter directory: Where to put both.
    /// - Returns: The unlocked vault, its file and the key file.
    public static func keyFileVault(in directory: TemporaryDirectory) throws -> (Vault, URL, URL) {
        let keyFile = directory.file("vault.key")
        try KeyFile.generate(at: keyFile)
        let url = directory.file("vault.db")
        return (try Vault.create(at: url, unlock: .keyFile(keyFile)), url, keyFile)
    }
}
