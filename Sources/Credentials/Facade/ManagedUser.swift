import Foundation
import OAuth2

/// The user a ``CredentialsManager``'s credentials are about: the claims of their ID token, with
/// whether that ID token's signature and claims are known to have been verified.
///
/// Read `name`, `email`, `subject` as from Auth0's `UserInfo`; check ``isVerified`` before
/// trusting them for anything but display.
public struct ManagedUser: Sendable, Hashable, JSONClaimsContainer {
    /// The ID token's claims.
    public let claims: [String: JSONValue]
    /// Whether the ID token is known to be verified (``JWT/isVerified``): `true` for one
    /// ``IDTokenValidator`` checked when the server sent it, also once stored in and read back from
    /// a vault; `false` for one decoded from a raw response.
    public let isVerified: Bool

    /// A user from an ID token.
    ///
    /// - Parameter idToken: The ID token.
    public init(idToken: JWT) {
        claims = idToken.claims
        isVerified = idToken.isVerified
    }
}
