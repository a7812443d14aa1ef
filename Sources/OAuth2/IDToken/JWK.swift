import Foundation
import VaultCrypto

/// One public key of an issuer's JWK set (RFC 7517) that can check ID-token signatures.
///
/// A key checks exactly one algorithm, fixed by its type: `RSA` keys `RS256`, `EC` keys on `P-256`
/// `ES256`, `OKP` keys on `Ed25519` `EdDSA`. A key whose own `alg` names another algorithm is not
/// kept, so no token header can make a key check what its issuer did not publish it for.
public struct JWK: Sendable {
    /// `kid`, when the key has one.
    public let keyID: String?
    /// The one algorithm this key checks.
    public let algorithm: JWSAlgorithm
    /// The key itself.
    let publicKey: SignaturePublicKey

    /// `kty`: `RSA`, `EC` or `OKP`.
    public var keyType: String {
        switch algorithm {
        case .rs256: "RSA"
        case .es256: "EC"
        case .edDSA: "OKP"
        }
    }

    /// Whether `signature` is this key's signature of `message`, by the key's one algorithm.
    ///
    /// - Parameters:
    ///   - signature: The signature (for `ES256`, the 64 bytes `r || s`).
    ///   - message: The signed bytes.
    /// - Returns: `true` only for a valid signature.
    package func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        publicKey.isValidSignature(signature, for: message)
    }

    /// The key in one member of a JWK set's `keys`, or `nil` for a key that is not a usable
    /// signature key: `use` other than `sig`, `key_ops` without `verify`, an unknown `kty` or `crv`,
    /// an `alg` other than its type's algorithm, or parameters that do not make a valid key (an RSA
    /// modulus under 2048 bits, a point off the curve, a field that is not base64url).
    ///
    /// - Parameter json: The key's members.
    init?(_ json: [String: JSONValue]) {
        let algorithm: JWSAlgorithm
        switch (json["kty"]?.stringValue, json["crv"]?.stringValue) {
        case ("RSA"?, _): algorithm = .rs256
        case ("EC"?, "P-256"?): algorithm = .es256
        case ("OKP"?, "Ed25519"?): algorithm = .edDSA
        default: return nil
        }
        switch json["key_ops"] {
        case nil: break
        case .array(let operations)? where operations.contains(.string("verify")): break
        default: return nil
        }
        guard json["use"].map({ $0 == .string("sig") }) ?? true,
            json["alg"].map({ $0 == .string(algorithm.rawValue) }) ?? true,
            json["kid"].map({ $0.stringValue != nil }) ?? true
        else { return nil }
        func bytes(_ field: String) -> [UInt8]? {
            json[field]?.stringValue.flatMap(Base64URL.decode)
        }
        let key: SignaturePublicKey?
        switch algorithm {
        case .rs256: key = bytes("n").flatMap { n in bytes("e").flatMap { e in try? .rsa(modulus: n, exponent: e) } }
        case .es256: key = bytes("x").flatMap { x in bytes("y").flatMap { y in try? .p256(x: x, y: y) } }
        case .edDSA: key = bytes("x").flatMap { try? .ed25519($0) }
        }
        guard let key else { return nil }
        keyID = json["kid"]?.stringValue
        self.algorithm = algorithm
        publicKey = key
    }
}
