import Foundation
import OAuth2

/// An access token for another API (audience), obtained with the refresh token of a
/// ``CredentialsManager``'s credentials. Its description leaves the token out.
public struct APICredentials: Sendable, Equatable, CustomStringConvertible {
    /// The API the token is for.
    public let audience: String
    /// The access token.
    public let accessToken: String
    /// The token type (`Bearer`).
    public let tokenType: String
    /// When the access token expires.
    public let expiresAt: Date
    /// The granted scopes, when the server says.
    public let scope: [String]?

    /// API credentials from their parts.
    ///
    /// - Parameters:
    ///   - audience: The API the token is for.
    ///   - accessToken: The access token.
    ///   - tokenType: The token type.
    ///   - expiresAt: When it expires.
    ///   - scope: The granted scopes.
    public init(audience: String, accessToken: String, tokenType: String, expiresAt: Date, scope: [String]?) {
        self.audience = audience
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.scope = scope
    }

    /// The audience, type, expiry and scopes; never the token.
    public var description: String {
        "APICredentials(audience: \(audience), type: \(tokenType), expiresAt: \(expiresAt), redacted)"
    }
}
