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
    /// Whether the ID token is known to be verified (``JWT/isVerified``): `true` for one the
    /// server just sent and ``IDTokenValidator`` checked; `false` for one decoded from a raw
    /// response, and for any ID token read back from a vault, whose records do not keep the mark.
    public let isVerified: Bool

    /// A user from an ID token.
    ///
    /// - Parameter idToken: The ID token.
    public init(idToken: JWT) {
        claims = idToken.claims
        isVerified = idToken.isVerified
    }
}
