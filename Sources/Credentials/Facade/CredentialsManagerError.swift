import Foundation
import OAuth2
import VaultCore

/// What a ``CredentialsManager`` call can fail with, one case per thing an app does about it
/// (in the shape of Auth0's `CredentialsManagerError`): unlock the vault, sign in again, retry
/// later. Messages never contain a token or a secret.
public enum CredentialsManagerError: Error, Equatable, Sendable, LocalizedError {
    /// The vault (or the credentials' class) is locked: unlock it; nothing was sent.
    case locked
    /// The credentials are access-controlled and the manager's authentication context gave no
    /// proof; nothing was sent.
    case interactionRequired
    /// No credentials are stored: sign in.
    case noCredentials
    /// The credentials have no refresh token, so they cannot be renewed: sign in again.
    case noRefreshToken
    /// The access token has expired (or expires within the lifetime asked for) and there is no
    /// refresh token to renew it with: sign in again.
    case expired
    /// The server refused or failed the renewal (`invalid_grant` means: sign in again).
    case renewFailed(OAuth2Error)
    /// The server refused or failed the revocation; the credentials are still stored.
    case revokeFailed(OAuth2Error)
    /// The server refused or failed the request for API credentials.
    case apiExchangeFailed(OAuth2Error)
    /// The server answered the request for API credentials with a token that is not shown to be
    /// for that audience (it ignores the `audience` parameter): the token was not given out.
    case audienceNotSupported(String)
    /// Even freshly renewed tokens live shorter than the minimum lifetime asked for, in seconds.
    case largeMinTTL(Int)
    /// The credentials were stored by another OAuth 2.0 client (issuer, client id or secret):
    /// a manager keeps one client's credentials; clear them first, or use a manager of its own.
    case differentClient
    /// The stored credentials were written with other security options than this manager's: a
    /// replacement would keep the old protection, so nothing was written. Clear them first.
    case securityMismatch
    /// The token storage failed otherwise (a corrupt record, a conflict that did not settle...).
    case storage(CredentialError)

    public var errorDescription: String? {
        switch self {
        case .locked: "The vault is locked; unlock it to use the stored credentials."
        case .interactionRequired: "The stored credentials need a proof of presence that was not given."
        case .noCredentials: "No credentials are stored; sign in."
        case .noRefreshToken: "The stored credentials have no refresh token; sign in again."
        case .expired: "The stored credentials have expired and cannot be renewed; sign in again."
        case .renewFailed(let error): "Renewing the credentials failed: \(error.localizedDescription)"
        case .revokeFailed(let error): "Revoking the credentials failed: \(error.localizedDescription)"
        case .apiExchangeFailed(let error): "Getting API credentials failed: \(error.localizedDescription)"
        case .audienceNotSupported(let audience):
            "The server does not issue access tokens for the audience \(audience) from a refresh token."
        case .largeMinTTL(let seconds): "The server issues tokens that live shorter than \(seconds) s."
        case .differentClient: "The stored credentials belong to another OAuth 2.0 client; clear them first."
        case .securityMismatch: "The stored credentials have other security options; clear them first."
        case .storage(let error): error.localizedDescription
        }
    }

    /// The manager's error for a credential-layer `error`, with `server` choosing the case of a
    /// server failure.
    static func translated(_ error: any Error, server: (OAuth2Error) -> CredentialsManagerError) -> any Error {
        switch error {
        case CredentialError.storage(.locked): CredentialsManagerError.locked
        case CredentialError.storage(.interactionRequired): CredentialsManagerError.interactionRequired
        case CredentialError.removed, CredentialError.notFound: CredentialsManagerError.noCredentials
        case CredentialError.oauth2(.missingToken(.refreshToken)): CredentialsManagerError.noRefreshToken
        case CredentialError.oauth2(let error): server(error)
        case let error as OAuth2Error: server(error)
        case let error as CredentialError: CredentialsManagerError.storage(error)
        case let error as VaultError: translated(CredentialError.storage(error), server: server)
        default: error
        }
    }
}
