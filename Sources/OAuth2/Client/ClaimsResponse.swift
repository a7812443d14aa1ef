import Foundation

/// An RFC 7662 introspection response.
public struct TokenInfo: Sendable, Hashable, JSONClaimsContainer {
    /// Every field of the response.
    public let claims: [String: JSONValue]

    /// A response from its fields.
    ///
    /// - Parameter claims: The fields.
    public init(claims: [String: JSONValue]) {
        self.claims = claims
    }

    /// Whether the server considers the token active.
    public var active: Bool { claims["active"] == .bool(true) }
}

/// An OIDC userinfo response.
public struct UserInfo: Sendable, Hashable, JSONClaimsContainer {
    /// Every claim of the response.
    public let claims: [String: JSONValue]

    /// A response from its claims.
    ///
    /// - Parameter claims: The claims.
    public init(claims: [String: JSONValue]) {
        self.claims = claims
    }
}
