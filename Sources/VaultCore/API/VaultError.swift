import Foundation

/// Every error the vault reports. Messages name what failed and what to do; they never contain a
/// secret, a stored value or an item name.
public enum VaultError: Error, Equatable, Sendable, LocalizedError {
    /// Wrong passphrase or key file. Never says which part of a composite unlock was wrong.
    ///
    /// A key slot that was tampered with, truncated or moved from another vault (any of its id,
    /// salt or wrapped payload) is a slot that does not open, so it gives this same error — the
    /// file cannot tell a damaged slot from a wrong passphrase — and never stops another intact
    /// slot from opening the vault.
    case invalidCredentials
    /// The vault (or the item's class) is locked: unlock it first.
    case locked
    /// Tampered, truncated, swapped, rolled back or corrupt data: a sealed record, the integrity
    /// digest, or the vault header (a vault id that is not 16 bytes).
    case integrity(String)
    /// A `...ThisDeviceOnly` item read on a machine without the device secret it was bound to.
    case unavailableOnThisDevice
    /// An access-controlled item read without a satisfied `AuthenticationContext`.
    case interactionRequired
    /// A `.biometryCurrentSet` item whose second factor was re-enrolled since it was stored:
    /// it can never be read again, as on a keychain when the enrolled biometrics change.
    case accessControlInvalidated
    /// The vault was unlocked through a key slot scoped to other access groups.
    case accessDenied(String)
    /// A policy the vault cannot enforce: refused, never silently downgraded.
    case unsupportedPolicy(String)
    /// A vault file or item that does not exist.
    case notFound(String)
    /// A vault file or item that already exists.
    case alreadyExists(String)
    /// Not a vault file, a newer format version, or KDF parameters outside the accepted bounds.
    case unsupportedFormat(String)
    /// A key file that is missing, unreadable, or too short.
    case invalidKeyFile(String)
    /// An argument the vault cannot accept, such as an empty passphrase.
    case invalidArgument(String)
    /// A stored value that does not decode as the type the key asks for.
    case typeMismatch(String)
    /// A vault file, key file or device secret whose mode lets its group or other users read or
    /// write it (`mode & 0o077` is not zero), refused as ssh refuses a loose private key. The
    /// string is the file's path; the message says how to fix it (`chmod 600 <path>`). Set
    /// ``Vault/Configuration/allowsInsecurePermissions`` to accept such files anyway.
    case insecurePermissions(String)
    /// A record changed after it was read: another task or process wrote it first, so this write
    /// was not made (it would have overwritten the newer value). Read the record again and retry.
    case conflict(String)
    /// The file system or SQLite failed (disk full, I/O error, another process holding the lock
    /// past the busy timeout). The write did not happen; the previous state is intact.
    case storage(String)

    public var errorDescription: String? {
        switch self {
        case .invalidCredentials: "The passphrase or key file is wrong."
        case .locked: "The vault is locked; unlock it first."
        case .integrity(let detail): "Integrity check failed: \(detail)."
        case .unavailableOnThisDevice:
            "This item is bound to another device and cannot be read on this one."
        case .interactionRequired: "This item needs user authentication before it can be read."
        case .accessControlInvalidated:
            "This item was bound to a second factor that has since been re-enrolled; it cannot be read."
        case .accessDenied(let detail): "Access denied: \(detail)."
        case .unsupportedPolicy(let detail): "Unsupported security policy: \(detail)."
        case .notFound(let what): "Not found: \(what)."
        case .alreadyExists(let what): "Already exists: \(what)."
        case .unsupportedFormat(let detail): "Unsupported vault format: \(detail)."
        case .invalidKeyFile(let detail): "Invalid key file: \(detail)."
        case .invalidArgument(let detail): "Invalid argument: \(detail)."
        case .typeMismatch(let detail): "Type mismatch: \(detail)."
        case .insecurePermissions(let path):
            "\(path) is accessible by other users; restrict it with 'chmod 600 \(path)' "
                + "(or allow insecure permissions explicitly)."
        case .conflict(let what): "Changed by another writer: \(what); read it again and retry."
        case .storage(let detail): "Storage failure: \(detail)."
        }
    }
}
