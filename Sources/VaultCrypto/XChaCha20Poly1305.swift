internal import CSodium

/// XChaCha20-Poly1305 authenticated encryption with associated data (libsodium's IETF variant).
///
/// Shaped like CryptoKit's `ChaChaPoly`: ``seal(_:using:nonce:authenticating:)-([UInt8],_,_,_)``
/// returns a ``SealedBox`` whose ``SealedBox/combined`` form is `nonce || ciphertext || tag`, and
/// ``open(_:using:authenticating:)`` checks the tag before returning any plaintext. The 24-byte
/// nonce is random by default, which is safe for any number of messages under one key.
public enum XChaCha20Poly1305 {
    /// The key length: 32 bytes.
    public static let keyByteCount = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)
    /// The nonce length: 24 bytes.
    public static let nonceByteCount = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    /// The authentication tag length: 16 bytes.
    public static let tagByteCount = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

    /// Encrypts and authenticates `plaintext`, also authenticating `associatedData`.
    ///
    /// Wraps `crypto_aead_xchacha20poly1305_ietf_encrypt`.
    /// - Parameters:
    ///   - plaintext: The bytes to encrypt.
    ///   - key: A 32-byte key.
    ///   - nonce: The nonce; a fresh random one by default. Never reuse one under the same key.
    ///   - associatedData: Bytes bound to the ciphertext but not encrypted.
    /// - Returns: The sealed box.
    /// - Throws: ``CryptoError/invalidLength(_:)`` for a key that is not 32 bytes.
    public static func seal(
        _ plaintext: [UInt8], using key: SymmetricKey, nonce: Nonce = Nonce(),
        authenticating associatedData: [UInt8] = []
    ) throws -> SealedBox {
        try plaintext.withUnsafeBytes { message in
            try seal(message, using: key, nonce: nonce, authenticating: associatedData)
        }
    }

    /// Encrypts secret bytes held in secure memory (a wrapped key) without copying them out.
    ///
    /// Wraps `crypto_aead_xchacha20poly1305_ietf_encrypt`.
    /// - Parameters:
    ///   - plaintext: The secret to encrypt.
    ///   - key: A 32-byte key.
    ///   - nonce: The nonce; a fresh random one by default.
    ///   - associatedData: Bytes bound to the ciphertext but not encrypted.
    /// - Returns: The sealed box.
    /// - Throws: ``CryptoError/invalidLength(_:)`` for a key that is not 32 bytes.
    public static func seal(
        _ plaintext: SecureBytes, using key: SymmetricKey, nonce: Nonce = Nonce(),
        authenticating associatedData: [UInt8] = []
    ) throws -> SealedBox {
        try plaintext.withUnsafeBytes { message in
            try seal(message, using: key, nonce: nonce, authenticating: associatedData)
        }
    }

    /// Checks the tag and decrypts.
    ///
    /// Wraps `crypto_aead_xchacha20poly1305_ietf_decrypt`.
    /// - Parameters:
    ///   - box: The sealed box.
    ///   - key: The 32-byte key it was sealed with.
    ///   - associatedData: The same associated data it was sealed with.
    /// - Returns: The plaintext.
    /// - Throws: ``CryptoError/authenticationFailed`` when the key, the data or the associated data
    ///   differ in any bit; ``CryptoError/invalidLength(_:)`` for a wrong-size key.
    public static func open(
        _ box: SealedBox, using key: SymmetricKey, authenticating associatedData: [UInt8] = []
    ) throws -> [UInt8] {
        let count = box.combined.count - nonceByteCount - tagByteCount
        var failed = false
        let plaintext = try [UInt8](filling: count) { buffer, initialized in
            let out = UnsafeMutableRawBufferPointer(buffer)
            failed = try !decrypt(box, using: key, authenticating: associatedData, into: out)
            initialized = failed ? 0 : count
        }
        if failed { throw CryptoError.authenticationFailed }
        return plaintext
    }

    /// Checks the tag and decrypts straight into secure memory (for wrapped keys).
    ///
    /// Wraps `crypto_aead_xchacha20poly1305_ietf_decrypt`.
    /// - Parameters:
    ///   - box: The sealed box.
    ///   - key: The 32-byte key it was sealed with.
    ///   - associatedData: The same associated data it was sealed with.
    /// - Returns: The plaintext in guarded memory.
    /// - Throws: ``CryptoError/authenticationFailed`` or ``CryptoError/invalidLength(_:)``.
    public static func openSecure(
        _ box: SealedBox, using key: SymmetricKey, authenticating associatedData: [UInt8] = []
    ) throws -> SecureBytes {
        let count = box.combined.count - nonceByteCount - tagByteCount
        return try SecureBytes(count: count) { out in
            guard try decrypt(box, using: key, authenticating: associatedData, into: out) else {
                throw CryptoError.authenticationFailed
            }
        }
    }

    private static func seal(
        _ message: UnsafeRawBufferPointer, using key: SymmetricKey, nonce: Nonce,
        authenticating associatedData: [UInt8]
    ) throws -> SealedBox {
        try key.requireByteCount(keyByteCount, for: "XChaCha20-Poly1305")
        let total = nonceByteCount + message.count + tagByteCount
        let combined = [UInt8](filling: total) { buffer, initialized in
            let base = buffer.baseAddress!
            nonce.bytes.withUnsafeBufferPointer { n in
                base.update(from: n.baseAddress!, count: nonceByteCount)
            }
            key.withUnsafeBytes { k in
                associatedData.withUnsafeBufferPointer { ad in
                    var written: UInt64 = 0
                    _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                        base + nonceByteCount, &written,
                        message.baseAddress?.assumingMemoryBound(to: UInt8.self),
                        UInt64(message.count),
                        ad.baseAddress, UInt64(ad.count), nil,
                        base, k.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
            initialized = total
        }
        return SealedBox(validated: combined)
    }

    private static func decrypt(
        _ box: SealedBox, using key: SymmetricKey, authenticating associatedData: [UInt8],
        into out: UnsafeMutableRawBufferPointer
    ) throws -> Bool {
        try key.requireByteCount(keyByteCount, for: "XChaCha20-Poly1305")
        return box.combined.withUnsafeBufferPointer { combined in
            let base = combined.baseAddress!
            return key.withUnsafeBytes { k in
                associatedData.withUnsafeBufferPointer { ad in
                    crypto_aead_xchacha20poly1305_ietf_decrypt(
                        out.baseAddress?.assumingMemoryBound(to: UInt8.self), nil, nil,
                        base + nonceByteCount, UInt64(combined.count - nonceByteCount),
                        ad.baseAddress, UInt64(ad.count),
                        base, k.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 0
                }
            }
        }
    }
}
