internal import COpenSSL
import Locking

/// An OpenSSL public key (`EVP_PKEY`) for RSA or P-256, freed with this object with the verification
/// contexts it keeps: the one place libcrypto is called.
///
/// `@unchecked Sendable`: the key is built once in the initialiser and only read afterwards
/// (libcrypto allows one `EVP_PKEY` to be used by verifications on several threads at once), and a
/// verification context is used by one check at a time, taken from and given back to a locked pool.
final class EVPPublicKey: @unchecked Sendable {
    private let key: OpaquePointer
    private let isRSA: Bool
    /// Contexts set up for a check (`EVP_PKEY_verify_init` with the digest and padding), ready for
    /// the next one: setting one up costs about as much as a quarter of an RSA-2048 check.
    private let idleContexts = Locked<[Context]>([])
    /// The most idle contexts kept: about one per thread checking at once.
    private static let idleContextLimit = 8

    /// An `EVP_PKEY_CTX`, handed from one check to the next through the pool: `@unchecked
    /// Sendable` because only the check that took it from the pool uses it.
    private struct Context: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private init(_ key: OpaquePointer, isRSA: Bool) {
        self.key = key
        self.isRSA = isRSA
    }

    deinit {
        idleContexts.withLock { contexts in
            for context in contexts { EVP_PKEY_CTX_free(context.pointer) }
        }
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
    /// `ECDSA-Sig-Value` for P-256. Wraps `EVP_PKEY_verify`, over a digest computed beforehand,
    /// which costs a fraction of what `EVP_DigestVerifyInit` sets up for every call.
    func isValidSignature(_ signature: [UInt8], sha256 digest: [UInt8]) -> Bool {
        guard let context = idleContexts.withLock({ $0.popLast() }) ?? makeContext() else { return false }
        guard EVP_PKEY_verify(context.pointer, signature, signature.count, digest, digest.count) == 1 else {
            // A context that refused is not kept, and the reason left in this thread's error queue,
            // which nothing reads, is dropped.
            EVP_PKEY_CTX_free(context.pointer)
            ERR_clear_error()
            return false
        }
        let kept = idleContexts.withLock { contexts in
            guard contexts.count < Self.idleContextLimit else { return false }
            contexts.append(context)
            return true
        }
        if !kept { EVP_PKEY_CTX_free(context.pointer) }
        return true
    }

    /// A context set up to check a SHA-256 signature, or `nil`. Wraps `EVP_PKEY_verify_init`.
    private func makeContext() -> Context? {
        guard let sha256 = Self.sha256, let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else { return nil }
        // The digest is named so an RSA check expects a SHA-256 DigestInfo (RFC 8017 §9.2).
        guard EVP_PKEY_verify_init(context) == 1, EVP_PKEY_CTX_set_signature_md(context, sha256) == 1,
            !isRSA || EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1
        else {
            EVP_PKEY_CTX_free(context)
            ERR_clear_error()
            return nil
        }
        return Context(pointer: context)
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
