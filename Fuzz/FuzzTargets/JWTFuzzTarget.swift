import Foundation
import OAuth2

/// The compact JWT decoder and the claims read from it: what decodes must decode the same way
/// again, and survive the `Codable` round trip through which tokens are stored.
package enum JWTFuzzTarget: FuzzTarget {
    /// Decodes `input` (as UTF-8) as a JWT and reads every claim accessor.
    ///
    /// - Parameter input: The compact serialisation.
    package static func run(_ input: [UInt8]) {
        guard let jwt = try? JWT(String(decoding: input, as: UTF8.self)) else { return }
        _ = jwt.description
        _ = (jwt.subject, jwt.issuer, jwt.audience, jwt.email, jwt.name, jwt.preferredUsername)
        _ = (jwt.expirationTime, jwt.issuedAt)
        for name in jwt.claims.keys {
            let claim = Claim(rawValue: name)
            let value: Any? = jwt[claim]
            _ = value
            _ = jwt.date(claim)
        }
        let again = try? JWT(jwt.rawValue)
        require(again?.claims == jwt.claims && again?.header == jwt.header, "a JWT decodes differently twice")
        let restored = try? JSONDecoder().decode(JWT.self, from: JSONEncoder().encode(jwt))
        require(restored?.claims == jwt.claims, "a JWT does not survive its Codable round trip")
        // A token record keeps the compact form and reads it back without parsing it.
        let stored = try? JWT(stored: jwt.rawValue)
        require(stored != nil, "a JWT that decodes is refused when read back from a token record")
        require(stored?.claims == jwt.claims && stored?.header == jwt.header, "a stored JWT parses differently")
        let claims = try? JSONDecoder().decode([String: JSONValue].self, from: JSONEncoder().encode(jwt.claims))
        require(claims == jwt.claims, "a JWT's claims do not survive their Codable round trip")
    }
}
