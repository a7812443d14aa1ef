internal import CSodium

/// Non-secret random bytes (ids, salts, nonces) from libsodium's CSPRNG.
public enum SecureRandom {
    /// Returns `count` random bytes. Wraps `randombytes_buf`.
    ///
    /// - Parameter count: The number of bytes.
    /// - Returns: The bytes, in ordinary memory: use ``SecureBytes/random(count:)`` for secrets.
    public static func bytes(count: Int) -> [UInt8] {
        SodiumRuntime.ensureInitialized()
        return [UInt8](filling: count) { buffer, initialized in
            if let base = buffer.baseAddress { randombytes_buf(base, count) }
            initialized = count
        }
    }
}
