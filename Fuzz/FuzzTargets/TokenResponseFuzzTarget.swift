import Credentials
import Foundation
import OAuth2

/// The token endpoint's response (RFC 6749 §5.1 JSON), decoded into a ``Token``; a token that
/// decodes must also survive the record encoding it is stored in (and the `Codable` round trip,
/// which the legacy record form used).
package enum TokenResponseFuzzTarget: FuzzTarget {
    private static let context = Token.Context(
        issuer: URL(string: "https://issuer.example")!, clientID: "fuzz", scopes: ["openid"])
    private static let issuedAt = Date(timeIntervalSince1970: 1_800_000_000)

    /// Decodes `input` as a token response and checks the token it gives.
    ///
    /// - Parameter input: The response body.
    package static func run(_ input: [UInt8]) {
        guard let token = try? Token(response: Data(input), context: context, issuedAt: issuedAt) else { return }
        require(!token.accessToken.isEmpty, "a token without an access token decoded")
        require(token.expiresIn.isFinite, "a token's lifetime is not a finite number")
        // Both go into an Authorization header: nothing from the server may break its line.
        require(Token.knownTokenTypes.contains(token.tokenType), "a token type other than Bearer or DPoP decoded")
        require(
            token.accessToken.utf8.allSatisfy { (0x20...0x7E).contains($0) },
            "an access token with a control or non-ASCII character decoded")
        _ = token.description
        _ = token.expiresAt
        for kind in Token.Kind.allCases { _ = token.value(of: kind) }
        let stored: Data
        do {
            stored = try JSONEncoder().encode(token)
        } catch {
            fatalError("fuzz property failed: a decoded token cannot be encoded for storage: \(error)")
        }
        let restored = try? JSONDecoder().decode(Token.self, from: stored)
        require(restored == token, "a token does not survive its Codable round trip")
        let metadata = Token.Metadata(token: token, tags: ["fuzz": "yes"])
        let metadataRestored = try? JSONDecoder().decode(Token.Metadata.self, from: JSONEncoder().encode(metadata))
        require(metadataRestored == metadata, "a token's metadata does not survive its Codable round trip")
        // Whatever a server sends and decodes must be storable and read back: a record that does
        // not decode is a token lost.
        let record = try? TokenRecordCoding.decodeToken(TokenRecordCoding.encode(token))
        require(record == token, "a token does not survive its record encoding")
        let metadataRecord = (try? TokenRecordCoding.encode(metadata)).flatMap {
            try? TokenRecordCoding.decodeMetadata($0)
        }
        require(metadataRecord == metadata, "a token's metadata does not survive its record encoding")
        require(metadataRecord?.claims == metadata.claims, "a token's claims do not survive their record encoding")
    }
}
