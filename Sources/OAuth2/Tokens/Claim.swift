/// The name of a claim in an ID token, userinfo or introspection response.
///
/// Well-known names have constants; any other name works as a string literal:
/// `metadata[.roles]`, `metadata["department"]`.
public struct Claim: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    /// The claim's name in JSON.
    public let rawValue: String

    /// A claim by name.
    ///
    /// - Parameter rawValue: The JSON name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A claim from a string literal.
    ///
    /// - Parameter value: The JSON name.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// `sub`
    public static let subject: Claim = "sub"
    /// `iss`
    public static let issuer: Claim = "iss"
    /// `aud` (a string or an array of strings)
    public static let audience: Claim = "aud"
    /// `exp` (seconds since 1970)
    public static let expirationTime: Claim = "exp"
    /// `iat` (seconds since 1970)
    public static let issuedAt: Claim = "iat"
    /// `nbf` (seconds since 1970)
    public static let notBefore: Claim = "nbf"
    /// `auth_time` (seconds since 1970)
    public static let authTime: Claim = "auth_time"
    /// `nonce`
    public static let nonce: Claim = "nonce"
    /// `email`
    public static let email: Claim = "email"
    /// `email_verified`
    public static let emailVerified: Claim = "email_verified"
    /// `name`
    public static let name: Claim = "name"
    /// `given_name`
    public static let givenName: Claim = "given_name"
    /// `family_name`
    public static let familyName: Claim = "family_name"
    /// `preferred_username`
    public static let preferredUsername: Claim = "preferred_username"
    /// `roles`
    public static let roles: Claim = "roles"
    /// `groups`
    public static let groups: Claim = "groups"
    /// `scope`
    public static let scope: Claim = "scope"
    /// `client_id`
    public static let clientID: Claim = "client_id"
}
