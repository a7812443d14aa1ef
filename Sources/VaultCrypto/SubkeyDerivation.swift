internal import CSodium

/// Derives independent subkeys from one master key (libsodium's `crypto_kdf`).
public enum SubkeyDerivation {
    /// The master key length: 32 bytes.
    public static let masterKeyByteCount = Int(crypto_kdf_KEYBYTES)
    /// The context length: exactly 8 characters.
    public static let contextByteCount = Int(crypto_kdf_CONTEXTBYTES)

    /// Derives subkey number `id` for `context` from `masterKey`.
    ///
    /// Wraps `crypto_kdf_derive_from_key`.
    /// - Parameters:
    ///   - masterKey: A 32-byte key.
    ///   - id: The subkey number.
    ///   - context: Exactly 8 ASCII characters naming the use, such as `"TVvault1"`.
    ///   - byteCount: The subkey length, 16 to 64; 32 by default.
    /// - Returns: The subkey, in secure memory.
    /// - Throws: ``CryptoError/invalidLength(_:)`` for a wrong-size key, context or length.
    public static func deriveKey(
        from masterKey: SymmetricKey, id: UInt64, context: String, byteCount: Int = 32
    ) throws -> SymmetricKey {
        SodiumRuntime.ensureInitialized()
        try masterKey.requireByteCount(masterKeyByteCount, for: "crypto_kdf")
        let contextBytes = Array(context.utf8)
        guard contextBytes.count == contextByteCount else {
            throw CryptoError.invalidLength("a crypto_kdf context is \(contextByteCount) bytes")
        }
        guard byteCount >= Int(crypto_kdf_BYTES_MIN), byteCount <= Int(crypto_kdf_BYTES_MAX) else {
            throw CryptoError.invalidLength("a crypto_kdf subkey is 16 to 64 bytes")
        }
        let subkey = SecureBytes(count: byteCount) { out in
            masterKey.withUnsafeBytes { k in
                contextBytes.withUnsafeBufferPointer { ctx in
                    ctx.withMemoryRebound(to: CChar.self) { c in
                        _ = crypto_kdf_derive_from_key(
                            out.baseAddress!.assumingMemoryBound(to: UInt8.self), byteCount, id,
                            c.baseAddress!, k.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    }
                }
            }
        }
        return SymmetricKey(secureBytes: subkey)
    }
}
