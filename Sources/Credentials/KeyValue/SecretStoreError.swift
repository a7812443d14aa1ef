import Foundation
import VaultCore

/// Errors of ``SecretStore``. Unlike the leading keychain wrappers, a locked vault is never
/// reported as a missing item: `locked` and `itemNotFound` are distinct.
public enum SecretStoreError: Error, Equatable, Sendable, LocalizedError {
    /// Nothing is stored under the key.
    case itemNotFound
    /// The vault, or the item's accessibility class, is locked: the item may well exist.
    case locked
    /// The item needs a proof the store's context did not give.
    case interactionRequired
    /// The proof given was wrong.
    case authenticationFailed
    /// The item holds bytes that are not UTF-8 text, read as a string.
    case typeMismatch
    /// Items are already stored under these keys, and the call was not to replace them.
    case alreadyExists(keys: [String])
    /// Any other vault error, kept as the cause.
    case vault(VaultError)

    public var errorDescription: String? {
        switch self {
        case .itemNotFound: "No item is stored under this key."
        case .locked: "The vault is locked; the item cannot be read until it is unlocked."
        case .interactionRequired: "This item needs user authentication before it can be read."
        case .authenticationFailed: "The authentication proof was wrong."
        case .typeMismatch: "The item does not hold UTF-8 text."
        case .alreadyExists(let keys):
            "Already stored: \(keys.prefix(10).joined(separator: ", "))"
                + (keys.count > 10 ? " and \(keys.count - 10) more" : "") + "; nothing was written."
        case .vault(let error): error.localizedDescription
        }
    }

    init(_ error: VaultError) {
        switch error {
        case .locked: self = .locked
        case .interactionRequired: self = .interactionRequired
        case .invalidCredentials: self = .authenticationFailed
        default: self = .vault(error)
        }
    }
}
