import Foundation

/// What unlocks a vault: a passphrase, a key file, or both together.
public enum VaultUnlock: Sendable, CustomStringConvertible {
    /// A passphrase, stretched with Argon2id at the slot's stored parameters.
    case passphrase(Passphrase)
    /// A key file of at least 32 random bytes (see ``KeyFile/generate(at:)``).
    case keyFile(URL)
    /// Both at once: neither part alone unlocks the slot.
    case composite(passphrase: Passphrase, keyFile: URL)

    /// The kind of unlock, never the secret.
    public var description: String {
        switch self {
        case .passphrase: "passphrase"
        case .keyFile: "key file"
        case .composite: "passphrase + key file"
        }
    }
}
