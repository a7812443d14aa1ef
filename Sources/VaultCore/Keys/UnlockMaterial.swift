import Foundation
import VaultCrypto

/// Unlock input read once (key file loaded, passphrase in secure memory), turned into a key
/// encryption key per slot.
///
/// - passphrase: KEK = Argon2id(passphrase, salt, the slot's costs)
/// - key file: KEK = BLAKE2b(key: BLAKE2b-512(file), "TokenVault key file" || salt)
/// - composite: KEK = BLAKE2b(key: passphrase KEK || key-file KEK, "TokenVault composite" || salt)
struct UnlockMaterial {
    let slotKind: KeySlot.Kind
    private let passphrase: SecureBytes?
    private let keyFileDigest: SymmetricKey?

    /// Reads `unlock`'s key file, if any, refusing one that others may access unless
    /// `allowsInsecurePermissions`.
    init(_ unlock: VaultUnlock, allowsInsecurePermissions: Bool) throws {
        switch unlock {
        case .passphrase(let passphrase):
            slotKind = .passphrase
            self.passphrase = passphrase.secureBytes
            keyFileDigest = nil
        case .keyFile(let url):
            slotKind = .keyFile
            passphrase = nil
            keyFileDigest = BLAKE2b.hashSecret(
                try KeyFile.read(url, allowsInsecurePermissions: allowsInsecurePermissions))
        case .composite(let passphrase, let url):
            slotKind = .composite
            self.passphrase = passphrase.secureBytes
            keyFileDigest = BLAKE2b.hashSecret(
                try KeyFile.read(url, allowsInsecurePermissions: allowsInsecurePermissions))
        }
    }

    /// Refuses material too weak to create a slot with.
    func checkStrength() throws {
        if let passphrase, passphrase.count == 0 {
            throw VaultError.invalidArgument("the passphrase is empty")
        }
    }

    /// The key encryption key for a slot with this salt and these costs.
    func keyEncryptionKey(salt: [UInt8], parameters: Argon2id.Parameters) throws -> SymmetricKey {
        let fileKEK = keyFileDigest.map {
            BLAKE2b.deriveKey(from: Array("TokenVault key file".utf8) + salt, key: $0)
        }
        let passphraseKEK = try passphrase.map {
            try Argon2id.deriveKey(from: $0, salt: salt, parameters: parameters)
        }
        switch (passphraseKEK, fileKEK) {
        case (let p?, nil): return p
        case (nil, let f?): return f
        case (let p?, let f?):
            return BLAKE2b.deriveKey(
                from: Array("TokenVault composite".utf8) + salt, key: SymmetricKey(concatenating: p, f))
        case (nil, nil): preconditionFailure("unlock material without a secret")
        }
    }
}
