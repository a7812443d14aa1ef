import Foundation

/// A server's metadata: OIDC discovery (`/.well-known/openid-configuration`) merged with RFC 8414
/// (`/.well-known/oauth-authorization-server`), OIDC winning where both say something.
public struct OpenIDConfiguration: Sendable, Hashable {
    /// Every field of the merged documents.
    public let fields: [String: JSONValue]

    /// Metadata from merged fields.
    ///
    /// - Parameter fields: The documents' fields.
    public init(fields: [String: JSONValue]) {
        self.fields = fields
    }

    /// `issuer`
    public var issuer: URL? { url("issuer") }
    /// `authorization_endpoint`
    public var authorizationEndpoint: URL? { url("authorization_endpoint") }
    /// `token_endpoint`
    public var tokenEndpoint: URL? { url("token_endpoint") }
    /// `userinfo_endpoint`
    public var userinfoEndpoint: URL? { url("userinfo_endpoint") }
    /// `revocation_endpoint` (RFC 7009)
    public var revocationEndpoint: URL? { url("revocation_endpoint") }
    /// `introspection_endpoint` (RFC 7662)
    public var introspectionEndpoint: URL? { url("introspection_endpoint") }
    /// `device_authorization_endpoint` (RFC 8628)
    public var deviceAuthorizationEndpoint: URL? { url("device_authorization_endpoint") }
    /// `jwks_uri`
    public var jwksURI: URL? { url("jwks_uri") }
    /// `grant_types_supported`
    public var grantTypesSupported: [String]? { strings("grant_types_supported") }
    /// `scopes_supported`
    public var scopesSupported: [String]? { strings("scopes_supported") }

    /// The URL in `field`, if it is one.
    ///
    /// - Parameter field: The field name.
    /// - Returns: The URL.
    public func url(_ field: String) -> URL? {
        fields[field]?.stringValue.flatMap(URL.init(string:))
    }

    private func strings(_ field: String) -> [String]? {
        guard case .array(let values)? = fields[field] else { return nil }
        return values.compactMap(\.stringValue)
    }

    /// `primary`'s fields, with `secondary`'s filling the gaps.
    static func merging(_ primary: [String: JSONValue]?, _ secondary: [String: JSONValue]?) -> OpenIDConfiguration {
        OpenIDConfiguration(fields: (secondary ?? [:]).merging(primary ?? [:]) { _, preferred in preferred })
    }
}
