internal import CSodium

/// A public key that checks signatures: RSA (PKCS #1 v1.5 with SHA-256), ECDSA on P-256 with
/// SHA-256, or Ed25519. Each kind of key checks exactly one algorithm, so the key decides how a
/// signature is read, never the signed data.
///
/// RSA and P-256 go through libcrypto (``EVPPublicKey``), Ed25519 through libsodium.
package struct SignaturePublicKey: Sendable {
    private enum Kind: Sendable {
        case rsa, p256, ed25519
    }

    private let kind: Kind
    // The key as libcrypto holds it (RSA, P-256), or the Ed25519 key's bytes. Two stored properties,
    // not an enum with payloads: an enum keeps its case in the spare bits of its payload's pointer,
    // and LeakSanitizer, which cannot follow such a pointer, reported every key held as leaked.
    private let evpKey: EVPPublicKey?
    private let ed25519Key: [UInt8]

    private init(_ kind: Kind, evpKey: EVPPublicKey? = nil, ed25519Key: [UInt8] = []) {
        self.kind = kind
        self.evpKey = evpKey
        self.ed25519Key = ed25519Key
    }

    /// The smallest RSA modulus accepted, in bits (RFC 7518 §3.3).
    package static let minimumRSABits = 2048
    /// The largest RSA modulus accepted, in bits: a bigger one makes each check slower for nothing.
    package static let maximumRSABits = 8192

    /// An RSA public key.
    ///
    /// - Parameters:
    ///   - modulus: The modulus, big-endian.
    ///   - exponent: The public exponent, big-endian.
    /// - Returns: The key.
    /// - Throws: ``CryptoError/invalidParameters(_:)`` for a modulus outside 2048 to 8192 bits or a
    ///   key libcrypto refuses.
    package static func rsa(modulus: [UInt8], exponent: [UInt8]) throws(CryptoError) -> SignaturePublicKey {
        guard let key = EVPPublicKey.rsa(modulus: modulus, exponent: exponent) else {
            throw CryptoError.invalidParameters("not a valid RSA public key")
        }
        guard (minimumRSABits...maximumRSABits).contains(key.bits) else {
            throw CryptoError.invalidParameters(
                "an RSA modulus of \(key.bits) bits (\(minimumRSABits) to \(maximumRSABits) accepted)")
        }
        return SignaturePublicKey(.rsa, evpKey: key)
    }

    /// A P-256 public key from its affine coordinates.
    ///
    /// - Parameters:
    ///   - x: The x coordinate, 32 bytes big-endian.
    ///   - y: The y coordinate, 32 bytes big-endian.
    /// - Returns: The key.
    /// - Throws: ``CryptoError/invalidLength(_:)`` for coordinates of another length,
    ///   ``CryptoError/invalidParameters(_:)`` for a point not on the curve.
    package static func p256(x: [UInt8], y: [UInt8]) throws(CryptoError) -> SignaturePublicKey {
        guard x.count == 32, y.count == 32 else { throw CryptoError.invalidLength("P-256 coordinates are 32 bytes") }
        guard let key = EVPPublicKey.p256(point: [0x04] + x + y) else {
            throw CryptoError.invalidParameters("not a point on P-256")
        }
        return SignaturePublicKey(.p256, evpKey: key)
    }

    /// An Ed25519 public key.
    ///
    /// - Parameter publicKey: The 32-byte key.
    /// - Returns: The key.
    /// - Throws: ``CryptoError/invalidLength(_:)`` for a key of another length.
    package static func ed25519(_ publicKey: [UInt8]) throws(CryptoError) -> SignaturePublicKey {
        guard publicKey.count == Int(crypto_sign_PUBLICKEYBYTES) else {
            throw CryptoError.invalidLength("an Ed25519 public key is \(crypto_sign_PUBLICKEYBYTES) bytes")
        }
        return SignaturePublicKey(.ed25519, ed25519Key: publicKey)
    }

    /// Whether `signature` is a signature of `message` under this key: PKCS #1 v1.5 over SHA-256
    /// for RSA, ECDSA over SHA-256 given as the 64 bytes `r || s` for P-256 (RFC 7518 §3.4), and
    /// Ed25519 (libsodium's `crypto_sign_verify_detached`, which refuses non-canonical signatures
    /// and small-order keys).
    ///
    /// - Parameters:
    ///   - signature: The signature.
    ///   - message: The signed bytes.
    /// - Returns: `true` only for a valid signature.
    package func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        switch kind {
        case .rsa:
            return evpKey?.isValidSignature(signature, sha256: SHA256.hash(message)) ?? false
        case .p256:
            guard let der = Self.derECDSASignature(signature) else { return false }
            return evpKey?.isValidSignature(der, sha256: SHA256.hash(message)) ?? false
        case .ed25519:
            guard signature.count == Int(crypto_sign_BYTES) else { return false }
            SodiumRuntime.ensureInitialized()
            return crypto_sign_verify_detached(signature, message, UInt64(message.count), ed25519Key) == 0
        }
    }

    /// `r || s` (32 bytes each) as the DER `ECDSA-Sig-Value` libcrypto reads: a SEQUENCE of two
    /// INTEGERs, each without leading zeros but with a zero byte before a high bit. Every length
    /// fits in one byte (at most 2 x 35 bytes), so no long-form length is needed.
    private static func derECDSASignature(_ raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 64 else { return nil }
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.first.map({ $0 & 0x80 != 0 }) ?? true { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(raw[..<32]) + integer(raw[32...])
        return [0x30, UInt8(body.count)] + body
    }
}
