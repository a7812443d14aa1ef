import Foundation

/// A JSON Web Token, decoded for its claims.
///
/// This reads the payload of a compact JWS (`header.payload.signature`); it does not verify the
/// signature, since the token came straight from the issuer over TLS (OIDC Core 3.1.3.7 allows
/// this for the token endpoint). Never trust a JWT from elsewhere on this alone.
public struct JWT: Codable, Sendable, Hashable, HasClaims, JSONClaimsContainer, CustomStringConvertible,
    CustomReflectable
{
    /// The compact serialisation.
    public let rawValue: String
    /// The payload's claims.
    public let claims: [String: JSONValue]
    /// The header's fields (`alg`, `kid`, `typ`).
    public let header: [String: JSONValue]

    /// Decodes a compact JWT.
    ///
    /// - Parameter rawValue: `header.payload.signature`, base64url without padding.
    /// - Throws: ``OAuth2Error/invalidToken(_:)`` when it has not three parts, a part is not
    ///   base64url, or the header or payload is not a JSON object.
    public init(_ rawValue: String) throws {
        let parts = rawValue.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw OAuth2Error.invalidToken("a JWT has three dot-separated parts, this has \(parts.count)")
        }
        self.rawValue = rawValue
        header = try Self.decodeObject(parts[0], part: "header")
        claims = try Self.decodeObject(parts[1], part: "payload")
    }

    /// Redacted: the token's issuer and subject, never the token.
    public var description: String {
        "JWT(iss: \(issuer ?? "-"), sub: \(subject ?? "-"), redacted)"
    }

    /// What `dump()` and debuggers show: the issuer and subject, never the token.
    public var customMirror: Mirror {
        Mirror(self, children: ["issuer": issuer as Any, "subject": subject as Any], displayStyle: .struct)
    }

    public init(from decoder: any Decoder) throws {
        try self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func == (lhs: JWT, rhs: JWT) -> Bool { lhs.rawValue == rhs.rawValue }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    static func base64URLDecode(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !base64.contains("=") else { return nil }
        switch base64.count % 4 {
        case 2: base64 += "=="
        case 3: base64 += "="
        case 1: return nil
        default: break
        }
        return Data(base64Encoded: base64)
    }

    private static func decodeObject(_ text: Substring, part: String) throws -> [String: JSONValue] {
        guard let data = base64URLDecode(text) else {
            throw OAuth2Error.invalidToken("the JWT \(part) is not base64url")
        }
        guard case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: data) else {
            throw OAuth2Error.invalidToken("the JWT \(part) is not a JSON object")
        }
        return object
    }
}
