internal import COpenSSL

/// An OpenSSL public key (`EVP_PKEY`) for RSA or P-256, freed with this object: the one place
/// libcrypto is called.
///
/// `@unchecked Sendable`: the key is built once in the initialiser and only read afterwards, and
/// libcrypto allows one `EVP_PKEY` to be used by verifications on several threads at once.
final class EVPPublicKey: @unchecked Sendable {
    private let key: OpaquePointer
    private let isRSA: Bool

    private init(_ key: OpaquePointer, isRSA: Bool) {
        self.key = key
        self.isRSA = isRSA
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// An RSA public key from its big-endian modulus and exponent, or `nil` when libcrypto refuses
    /// it. Wraps `EVP_PKEY_fromdata` and `EVP_PKEY_public_check`.
    static func rsa(modulus: [UInt8], exponent: [UInt8]) -> EVPPublicKey? {
        guard let n = BN_bin2bn(modulus, Int32(modulus.count), nil) else { return nil }
        defer { BN_free(n) }
        guard let e = BN_bin2bn(exponent, Int32(exponent.count), nil) else { return nil }
        defer { BN_free(e) }
        return fromData(type: "RSA", tokenvault_rsa_public_parameters(n, e), isRSA: true)
    }

    /// A P-256 public key from its uncompressed point (`04 || x || y`), or `nil` when the point is
    /// not on the curve. Wraps `EVP_PKEY_fromdata` and `EVP_PKEY_public_check`.
    static func p256(point: [UInt8]) -> EVPPublicKey? {
        fromData(type: "EC", tokenvault_p256_public_parameters(point, point.count), isRSA: false)
    }

    /// The key's size in bits (the modulus for RSA). Wraps `EVP_PKEY_get_bits`.
    var bits: Int { Int(EVP_PKEY_get_bits(key)) }

    /// Whether `signature` is this key's signature of a SHA-256 digest: PKCS #1 v1.5 for RSA, a DER
    /// `ECDSA-Sig-Value` for P-256. Wraps `EVP_PKEY_verify`: over a digest computed beforehand,
    /// which costs a fraction of what `EVP_DigestVerifyInit` sets up for every call.
    func isValidSignature(_ signature: [UInt8], sha256 digest: [UInt8]) -> Bool {
        // The digest is named so an RSA check expects a SHA-256 DigestInfo (RFC 8017 §9.2).
        guard let sha256 = Self.sha256, let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else { return false }
        defer { EVP_PKEY_CTX_free(context) }
        let ready =
            EVP_PKEY_verify_init(context) == 1 && EVP_PKEY_CTX_set_signature_md(context, sha256) == 1
            && (!isRSA || EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1)
        let valid = ready && EVP_PKEY_verify(context, signature, signature.count, digest, digest.count) == 1
        // A refused signature leaves its reason in this thread's error queue, which nothing reads.
        if !valid { ERR_clear_error() }
        return valid
    }

    /// SHA-256, fetched once: an implicit fetch on every verification costs a look-up per call.
    private nonisolated(unsafe) static let sha256 = EVP_MD_fetch(nil, "SHA256", nil)

    /// The key `parameters` describe, checked; frees `parameters`.
    private static func fromData(
        type: String, _ parameters: UnsafeMutablePointer<OSSL_PARAM>?, isRSA: Bool
    ) -> EVPPublicKey? {
        defer { ERR_clear_error() }
        guard let parameters else { return nil }
        defer { OSSL_PARAM_free(parameters) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(context) }
        var made: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1,
            EVP_PKEY_fromdata(context, &made, tokenvault_evp_pkey_public_key_selection(), parameters) == 1,
            let made
        else { return nil }
        let key = EVPPublicKey(made, isRSA: isRSA)
        guard let check = EVP_PKEY_CTX_new_from_pkey(nil, made, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(check) }
        return EVP_PKEY_public_check(check) == 1 ? key : nil
    }
}
