import Foundation
import OAuth2
import VaultCore

/// Every error of the credential layer; the lower layer's error is kept as the cause. Messages
/// never contain a token, a secret or a tag value.
public enum CredentialError: Error, Equatable, Sendable, LocalizedError {
    /// The token storage (the vault) refused or failed: locked, interaction required, integrity...
    case storage(VaultError)
    /// The OAuth 2.0 server or client failed.
    case oauth2(OAuth2Error)
    /// A token with this id is already stored.
    case alreadyExists(String)
    /// No token with this id is stored.
    case notFound(String)
    /// This credential was removed; make a new one.
    case removed(String)
    /// The stored token with this id was written by another task or process after it was read, and
    /// re-reading and merging did not settle it: nothing was written. Try again.
    case conflict(String)
    /// The security options contradict each other (two accessibility classes, say).
    case invalidSecurityOptions(String)
    /// A stored token or its metadata does not decode.
    case corruptRecord(String)
    /// Even freshly renewed tokens live shorter than the minimum lifetime asked for.
    case minTTLTooLarge(Int)

    public var errorDescription: String? {
        switch self {
        case .storage(let error): error.localizedDescription
        case .oauth2(let error): error.localizedDescription
        case .alreadyExists(let id): "A token with id \(id) is already stored."
        case .notFound(let id): "No token with id \(id) is stored."
        case .removed(let id): "The credential \(id) was removed."
        case .conflict(let id): "The token \(id) was changed by another writer at the same time; try again."
        case .invalidSecurityOptions(let detail): "Invalid security options: \(detail)."
        case .corruptRecord(let detail): "A stored token is unreadable: \(detail)."
        case .minTTLTooLarge(let seconds): "The server issues tokens that live shorter than \(seconds) s."
        }
    }

    /// Runs `body`, keeping lower-layer errors as the cause.
    static func translating<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch {
            throw translated(error)
        }
    }

    /// Runs `body`, keeping lower-layer errors as the cause.
    static func translating<Result>(_ body: () async throws -> Result) async throws -> Result {
        do {
            return try await body()
        } catch {
            throw translated(error)
        }
    }

    private static func translated(_ error: any Error) -> any Error {
        switch error {
        case let error as VaultError: CredentialError.storage(error)
        case let error as OAuth2Error: CredentialError.oauth2(error)
        default: error
        }
    }
}
