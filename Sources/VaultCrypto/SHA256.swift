internal import CSodium

/// SHA-256 (libsodium's `crypto_hash_sha256`), for protocols that name it, such as PKCE's S256.
public enum SHA256 {
    /// The digest of `message`. Wraps `crypto_hash_sha256`.
    ///
    /// - Parameter message: The bytes to hash.
    /// - Returns: The 32-byte digest.
    public static func hash(_ message: [UInt8]) -> [UInt8] {
        SodiumRuntime.ensureInitialized()
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        _ = crypto_hash_sha256(&digest, message, UInt64(message.count))
        return digest
    }
}
