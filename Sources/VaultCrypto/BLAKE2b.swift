internal import CSodium

/// BLAKE2b hashing, plain or keyed (libsodium's `crypto_generichash`).
public enum BLAKE2b {
    /// The largest key and output length: 64 bytes.
    public static let maximumByteCount = Int(crypto_generichash_BYTES_MAX)

    /// Hashes non-secret input to a non-secret digest (record ids, lookup tags).
    ///
    /// Wraps `crypto_generichash`.
    /// - Parameters:
    ///   - message: The bytes to hash.
    ///   - key: An optional 16-to-64-byte key, making this a PRF/MAC.
    ///   - outputByteCount: The digest length, 16 to 64; 32 by default.
    /// - Returns: The digest.
    public static func hash(
        _ message: [UInt8], key: SymmetricKey? = nil, outputByteCount: Int = 32
    ) -> [UInt8] {
        message.withUnsafeBytes { input in
            [UInt8](filling: outputByteCount) { buffer, initialized in
                compute(input, key: key, into: UnsafeMutableRawBufferPointer(buffer))
                initialized = outputByteCount
            }
        }
    }

    /// Derives a secret key as the keyed hash of a non-secret label under a secret key.
    ///
    /// Wraps `crypto_generichash`; the result stays in secure memory.
    /// - Parameters:
    ///   - message: The label (context, salt, domain name).
    ///   - key: The secret key.
    ///   - outputByteCount: The derived key length; 32 by default.
    /// - Returns: The derived key.
    public static func deriveKey(
        from message: [UInt8], key: SymmetricKey, outputByteCount: Int = 32
    ) -> SymmetricKey {
        message.withUnsafeBytes { input in
            SymmetricKey(
                secureBytes: SecureBytes(count: outputByteCount) { out in
                    compute(input, key: key, into: out)
                })
        }
    }

    /// Hashes a secret (such as a key file's contents) into secure memory, unkeyed.
    ///
    /// Wraps `crypto_generichash`.
    /// - Parameters:
    ///   - secret: The secret bytes.
    ///   - outputByteCount: The digest length; 64 by default.
    /// - Returns: The digest as a key.
    public static func hashSecret(_ secret: SecureBytes, outputByteCount: Int = 64) -> SymmetricKey {
        secret.withUnsafeBytes { input in
            SymmetricKey(
                secureBytes: SecureBytes(count: outputByteCount) { out in
                    compute(input, key: nil, into: out)
                })
        }
    }

    private static func compute(
        _ input: UnsafeRawBufferPointer, key: SymmetricKey?, into out: UnsafeMutableRawBufferPointer
    ) {
        SodiumRuntime.ensureInitialized()
        precondition(
            out.count >= Int(crypto_generichash_BYTES_MIN) && out.count <= maximumByteCount,
            "BLAKE2b output length out of range")
        let message = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let output = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
        if let key {
            precondition(key.byteCount <= maximumByteCount, "BLAKE2b key longer than 64 bytes")
            key.withUnsafeBytes { k in
                _ = crypto_generichash(
                    output, out.count, message, UInt64(input.count),
                    k.baseAddress!.assumingMemoryBound(to: UInt8.self), k.count)
            }
        } else {
            _ = crypto_generichash(output, out.count, message, UInt64(input.count), nil, 0)
        }
    }
}
