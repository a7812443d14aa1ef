import Credentials
import Foundation
import OAuth2

/// The token record decoders (`TokenRecordCoding`), on the plaintext a token record's halves open
/// to: the binary form and the legacy JSON form, as a token and as metadata. Whatever decodes must
/// re-encode (always in the binary form) to bytes that decode to the same value; binary input must
/// re-encode to itself, the layout being canonical.
package enum TokenRecordFuzzTarget: FuzzTarget {
    /// Decodes `input` as both halves of a token record and checks what decodes.
    ///
    /// - Parameter input: The bytes.
    package static func run(_ input: [UInt8]) {
        let binary = input.first.map(TokenRecordCoding.binaryFormatMarkers.contains) ?? false
        if let token = try? TokenRecordCoding.decodeToken(input) {
            _ = token.description
            for kind in Token.Kind.allCases { _ = token.value(of: kind) }
            // The ID token was not parsed on decoding: parse it now (a malformed one reads as empty).
            _ = (token.idToken?.claims, token.idToken?.header, token.idToken?.subject)
            require(token.issuedAt.timeIntervalSinceReferenceDate.isFinite, "a token with a non-finite date decoded")
            require(token.expiresIn.isFinite, "a token with a non-finite lifetime decoded")
            let encoded = TokenRecordCoding.encode(token)
            require(
                encoded.first.map(TokenRecordCoding.binaryFormatMarkers.contains) ?? false,
                "a token was not encoded in the binary form")
            require(
                (encoded.first == TokenRecordCoding.verifiedFormatMarker) == token.idTokenVerified,
                "a token's verified mark does not decide its record format")
            let again = try? TokenRecordCoding.decodeToken(encoded)
            require(again == token, "a decoded token does not survive its record encoding")
            require(again.map(TokenRecordCoding.encode) == encoded, "a token's record encoding is not stable")
            // Binary input comes back byte for byte, unless Foundation wrote the issuer URL otherwise.
            require(
                !binary || encoded == input || !input.containsSubsequence(token.context.issuer.absoluteString.utf8),
                "a binary token record re-encodes to other bytes")
        }
        if let metadata = try? TokenRecordCoding.decodeMetadata(input) {
            _ = metadata.description
            let claims = metadata.claims
            _ = (metadata.subject, metadata.email, metadata.audience, metadata.expirationTime)
            guard let encoded = try? TokenRecordCoding.encode(metadata) else {
                require(false, "decoded metadata cannot be encoded")
                return
            }
            require(!binary || encoded == input, "a binary metadata record re-encodes to other bytes")
            let again = try? TokenRecordCoding.decodeMetadata(encoded)
            require(again == metadata, "decoded metadata does not survive its record encoding")
            require(again?.claims == claims, "decoded claims do not survive their record encoding")
            require(
                again?.claimsVerified == metadata.claimsVerified,
                "the verified mark does not survive its record encoding")
            require(again?.hashValue == metadata.hashValue, "equal metadata hashes differently")
        }
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle`'s bytes occur in a row.
    fileprivate func containsSubsequence(_ needle: some Collection<UInt8>) -> Bool {
        firstRange(of: Array(needle)) != nil
    }
}
