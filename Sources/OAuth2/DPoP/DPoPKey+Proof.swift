import Foundation
import VaultCrypto

extension DPoPKey {
    /// A DPoP proof (RFC 9449 §4.2): a compact JWS with the header `typ` `dpop+jwt`, `alg` `EdDSA`
    /// and the public ``publicJWK``, and the claims `jti` (16 random bytes, new for every proof),
    /// `htm`, `htu` (the URL without its query and fragment), `iat`, and `ath` and `nonce` when
    /// given.
    ///
    /// A proof authorizes one request: it holds no secret of its own, but anyone who sees it could
    /// replay it within the server's window for `iat`, so it is not logged or shown either.
    ///
    /// - Parameters:
    ///   - method: The request's HTTP method, such as `POST`.
    ///   - url: The request's URL.
    ///   - accessToken: The access token the request carries, for a resource request: the proof
    ///     then holds `ath`, the base64url SHA-256 of it.
    ///   - nonce: The server's latest `DPoP-Nonce`, if it gave one.
    ///   - issuedAt: The time for `iat`.
    /// - Returns: The proof, for the request's `DPoP` header.
    public func proof(
        method: String, url: URL, accessToken: String? = nil, nonce: String? = nil, issuedAt: Date = Date()
    ) -> String {
        var claims: [String: JSONValue] = [
            "jti": .string(PKCE.base64URL(SecureRandom.bytes(count: 16))),
            "htm": .string(method.uppercased()),
            "htu": .string(Self.targetURI(url)),
            "iat": .number(issuedAt.timeIntervalSince1970.rounded(.down)),
        ]
        if let accessToken { claims["ath"] = .string(PKCE.base64URL(SHA256.hash(Array(accessToken.utf8)))) }
        if let nonce { claims["nonce"] = .string(nonce) }
        let header: [String: JSONValue] = [
            "typ": .string("dpop+jwt"), "alg": .string(algorithm.rawValue), "jwk": .object(publicJWK),
        ]
        let signingInput = Self.encodedPart(header) + "." + Self.encodedPart(claims)
        return signingInput + "." + PKCE.base64URL(signingKey.signature(for: Array(signingInput.utf8)))
    }

    /// The `htu` of a request to `url`: the URL without its query and fragment (RFC 9449 §4.2).
    ///
    /// - Parameter url: The request's URL.
    /// - Returns: The target URI.
    public static func targetURI(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url.absoluteString }
        components.query = nil
        components.fragment = nil
        return components.string ?? url.absoluteString
    }

    private static func encodedPart(_ object: [String: JSONValue]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // A dictionary of strings and finite numbers always encodes.
        return PKCE.base64URL(Array(try! encoder.encode(object)))
    }
}
