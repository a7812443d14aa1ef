import Foundation
import VaultCrypto

/// The key pair a DPoP-bound token is bound to (RFC 9449): an Ed25519 key (JWS `EdDSA`) whose
/// private half lives in guarded memory (``Ed25519SigningKey``, in ``SecureBytes``).
///
/// A token issued for a proof of this key (``Token/dpopKey``) is usable only with proofs it signs,
/// so the key is kept with the token, sealed in the same record. Its description and mirror show
/// the public key's thumbprint, never the private key.
public final class DPoPKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The JWS algorithm of the proofs: always `EdDSA`.
    public let algorithm = JWSAlgorithm.edDSA
    /// The private key.
    let signingKey: Ed25519SigningKey

    /// A new key pair from libsodium's CSPRNG.
    public convenience init() {
        self.init(Ed25519SigningKey())
    }

    init(_ signingKey: Ed25519SigningKey) {
        self.signingKey = signingKey
    }

    /// The key a stored seed determines (what storage reads back).
    ///
    /// - Parameter seed: The 32-byte Ed25519 seed.
    /// - Throws: ``CryptoError/invalidLength(_:)`` for a seed of another length.
    package convenience init(seed: SecureBytes) throws(CryptoError) {
        self.init(try Ed25519SigningKey(seed: seed))
    }

    /// Calls `body` with the private key's seed, for sealing it in storage. The view must not
    /// escape the closure.
    ///
    /// - Parameter body: Reads the 32 bytes.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    package func withSeed<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try signingKey.withSeed(body)
    }

    /// The public key as a JWK (RFC 8037 §2): `kty` `OKP`, `crv` `Ed25519`, `x`.
    public var publicJWK: [String: JSONValue] {
        ["kty": .string("OKP"), "crv": .string("Ed25519"), "x": .string(PKCE.base64URL(signingKey.publicKey))]
    }

    /// The JWK SHA-256 thumbprint of the public key (RFC 7638 §3), base64url: what a server binds
    /// the token to (its `cnf.jkt`).
    public var thumbprint: String {
        // RFC 7638 §3.2: the required members only, in lexicographic order, without whitespace.
        let canonical = "{\"crv\":\"Ed25519\",\"kty\":\"OKP\",\"x\":\"\(PKCE.base64URL(signingKey.publicKey))\"}"
        return PKCE.base64URL(SHA256.hash(Array(canonical.utf8)))
    }

    /// Whether both are the same private key (compared in constant time).
    public static func == (lhs: DPoPKey, rhs: DPoPKey) -> Bool {
        lhs === rhs || lhs.signingKey.isSameKey(as: rhs.signingKey)
    }

    /// The algorithm and the public key's thumbprint; never the private key.
    public var description: String { "DPoPKey(\(algorithm.rawValue), thumbprint: \(thumbprint))" }
    /// The same text as ``description``.
    public var debugDescription: String { description }
    /// What `dump()` and debuggers show: as ``description``.
    public var customMirror: Mirror {
        Mirror(self, children: ["algorithm": algorithm.rawValue, "thumbprint": thumbprint], displayStyle: .class)
    }
}
