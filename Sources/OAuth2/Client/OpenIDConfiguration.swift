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

    /// `document` if it is about `issuer` and its endpoints are fit to send requests to.
    ///
    /// The `issuer` field must be identical to the configured issuer, character for character
    /// (RFC 8414 §3.3, OIDC Discovery §4.3): no trailing-slash or case leniency, since a document
    /// fetched through a redirect, a proxy or a shared host could otherwise speak for another issuer.
    /// Every `*_endpoint` field and `jwks_uri` must be a URL `policy` permits.
    ///
    /// - Parameters:
    ///   - document: One discovery document's fields.
    ///   - issuer: The configured issuer.
    ///   - policy: Which URLs requests may go to.
    /// - Returns: `document`.
    /// - Throws: ``OAuth2Error/issuerMismatch(expected:received:)`` or
    ///   ``OAuth2Error/insecureTransport(_:)`` naming the field.
    static func checked(
        _ document: [String: JSONValue], issuer: URL, policy: OAuth2Client.TransportPolicy
    ) throws -> [String: JSONValue] {
        let named = document["issuer"]?.stringValue
        guard named == issuer.absoluteString else {
            // The received value is shown only when it is a URL with a host, as URL spells it (no
            // spaces or control characters from the server end up in a log line).
            let received = named.flatMap(URL.init(string:)).flatMap { $0.scheme != nil && $0.host != nil ? $0 : nil }
            throw OAuth2Error.issuerMismatch(expected: issuer.absoluteString, received: received?.absoluteString)
        }
        for (field, value) in document.sorted(by: { $0.key < $1.key })
        where field.hasSuffix("_endpoint") || field == "jwks_uri" {
            guard let text = value.stringValue, let url = URL(string: text) else {
                throw OAuth2Error.invalidResponse("the discovery document's \(field) is not a URL")
            }
            try policy.check(url, as: field)
        }
        return document
    }

    /// `primary`'s fields, with `secondary`'s filling the gaps.
    static func merging(_ primary: [String: JSONValue]?, _ secondary: [String: JSONValue]?) -> OpenIDConfiguration {
        OpenIDConfiguration(fields: (secondary ?? [:]).merging(primary ?? [:]) { _, preferred in preferred })
    }
}
