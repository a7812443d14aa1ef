import Foundation

/// The parts of an ID token's compact JWS (RFC 7515 §7.1) that a signature check reads, taken
/// from the token's own text: the header's algorithm and key id, the signing input and the
/// signature.
struct CompactJWS {
    /// The header's `alg`, one of the allowed algorithms.
    let algorithm: JWSAlgorithm
    /// The header's `kid`.
    let keyID: String?
    /// `header.payload`, the bytes the signature covers.
    let signingInput: [UInt8]
    /// The signature, decoded.
    let signature: [UInt8]

    /// The header's `typ` values an ID token may have: absent, or a plain JWT. Any other (such as
    /// `at+jwt`, an RFC 9068 access token) is a token of another kind.
    private static let acceptedTypes: Set<String> = ["jwt", "application/jwt"]

    /// Reads the parts of `token`. The header is the one ``JWT`` parsed, once its text is checked
    /// to be strict base64url (for which both decodings give the same bytes).
    ///
    /// Header parameters that would supply a key (`jwk`, `jku`, `x5u`, `x5c`) are never read: the
    /// key always comes from the issuer's published set.
    ///
    /// - Parameters:
    ///   - token: The ID token.
    ///   - allowed: The algorithms accepted.
    /// - Throws: ``IDTokenValidationError/malformed(_:)`` for parts that are not strict base64url,
    ///   a header that is not a JSON object, a `crit` header or another `typ`;
    ///   ``IDTokenValidationError/unsupportedAlgorithm(_:)`` for an `alg` not in `allowed`.
    init(_ token: JWT, allowing allowed: Set<JWSAlgorithm>) throws(IDTokenValidationError) {
        let text = Array(token.rawValue.utf8)
        let dot = UInt8(ascii: ".")
        guard let first = text.firstIndex(of: dot), let second = text[(first + 1)...].firstIndex(of: dot),
            !text[(second + 1)...].contains(dot)
        else { throw .malformed("a JWS has three parts") }
        let header = token.header
        guard Base64URL.isEncoded(text[..<first]), !header.isEmpty else {
            throw .malformed("the header is not a base64url JSON object")
        }
        guard case .string(let name)? = header["alg"] else { throw .malformed("the header has no alg") }
        guard let algorithm = JWSAlgorithm(rawValue: name), allowed.contains(algorithm) else {
            throw .unsupportedAlgorithm(Self.printable(name))
        }
        // RFC 7515 §4.1.11: extensions marked critical must be understood, and none are here.
        guard header["crit"] == nil else { throw .malformed("the header has critical extensions") }
        switch header["typ"] {
        case nil: break
        case .string(let type)? where Self.acceptedTypes.contains(type.lowercased()): break
        default: throw .malformed("the header's typ is not JWT")
        }
        switch header["kid"] {
        case nil: keyID = nil
        case .string(let id)?: keyID = id
        default: throw .malformed("the header's kid is not a string")
        }
        guard Base64URL.isEncoded(text[(first + 1)..<second]) else { throw .malformed("the payload is not base64url") }
        guard let signature = Base64URL.decode(text[(second + 1)...]) else {
            throw .malformed("the signature is not base64url")
        }
        self.algorithm = algorithm
        self.signature = signature
        signingInput = Array(text[..<second])
    }

    /// An algorithm name fit for an error message: short letters, digits and `+-_.` as given,
    /// anything else replaced, since the header is the sender's text.
    private static func printable(_ name: String) -> String {
        let plain =
            name.utf8.count <= 16
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "+-_.".unicodeScalars.contains($0))
            }
        return plain && !name.isEmpty ? name : "(unnamed)"
    }
}
