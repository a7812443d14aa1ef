internal import CSodium

/// Sealing to a public key, openable only with the matching private key (libsodium's
/// `crypto_box_seal`: X25519 + XSalsa20-Poly1305 with an ephemeral sender key).
///
/// Lets anyone holding the public key store a secret that only the holder of a proof can read.
public enum AnonymousSealedBox {
    /// The public key length: 32 bytes.
    public static let publicKeyByteCount = Int(crypto_box_PUBLICKEYBYTES)
    /// The bytes a seal adds to the plaintext: 48.
    public static let overheadByteCount = crypto_box_sealbytes()

    /// An X25519 key pair whose private half stays in secure memory.
    public struct KeyPair: Sendable {
        /// The public key (not secret).
        public let publicKey: [UInt8]
        /// The private key.
        public let privateKey: SymmetricKey

        /// The key pair derived from a 32-byte seed. Wraps `crypto_box_seed_keypair`.
        ///
        /// - Parameter seed: 32 secret bytes; the same seed always gives the same pair.
        /// - Throws: ``CryptoError/invalidLength(_:)`` for a seed of another length.
        public init(seed: SymmetricKey) throws {
            SodiumRuntime.ensureInitialized()
            try seed.requireByteCount(Int(crypto_box_SEEDBYTES), for: "crypto_box_seed_keypair")
            var publicKey = [UInt8](repeating: 0, count: AnonymousSealedBox.publicKeyByteCount)
            let secret = SecureBytes(count: Int(crypto_box_SECRETKEYBYTES)) { out in
                seed.withUnsafeBytes { s in
                    _ = crypto_box_seed_keypair(
                        &publicKey, out.baseAddress!.assumingMemoryBound(to: UInt8.self),
                        s.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
            self.publicKey = publicKey
            self.privateKey = SymmetricKey(secureBytes: secret)
        }

        /// A new random key pair.
        public init() {
            // A random seed is a random key pair; the seed itself is dropped (wiped) here.
            self = try! KeyPair(seed: SymmetricKey(randomByteCount: 32))
        }

        /// The pair from a stored private key. Wraps `crypto_scalarmult_base`.
        ///
        /// - Parameter privateKey: The 32-byte private key.
        /// - Throws: ``CryptoError/invalidLength(_:)`` for a key of another length.
        public init(privateKey: SymmetricKey) throws {
            SodiumRuntime.ensureInitialized()
            try privateKey.requireByteCount(Int(crypto_box_SECRETKEYBYTES), for: "an X25519 private key")
            var publicKey = [UInt8](repeating: 0, count: AnonymousSealedBox.publicKeyByteCount)
            privateKey.withUnsafeBytes { k in
                _ = crypto_scalarmult_base(&publicKey, k.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            self.publicKey = publicKey
            self.privateKey = privateKey
        }
    }

    /// Seals a secret to `publicKey`. Wraps `crypto_box_seal`.
    ///
    /// - Parameters:
    ///   - secret: The bytes to seal.
    ///   - publicKey: The recipient's 32-byte public key.
    /// - Returns: The sealed bytes (secret length + 48).
    /// - Throws: ``CryptoError/invalidLength(_:)`` for a bad public key.
    public static func seal(_ secret: SecureBytes, to publicKey: [UInt8]) throws -> [UInt8] {
        SodiumRuntime.ensureInitialized()
        guard publicKey.count == publicKeyByteCount else {
            throw CryptoError.invalidLength("an X25519 public key is 32 bytes")
        }
        var sealed = [UInt8](repeating: 0, count: secret.count + overheadByteCount)
        secret.withUnsafeBytes { message in
            _ = crypto_box_seal(
                &sealed, message.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(message.count), publicKey)
        }
        return sealed
    }

    /// Opens a sealed secret into secure memory. Wraps `crypto_box_seal_open`.
    ///
    /// - Parameters:
    ///   - sealed: What ``seal(_:to:)`` returned.
    ///   - keyPair: The recipient's key pair.
    /// - Returns: The secret.
    /// - Throws: ``CryptoError/authenticationFailed`` for the wrong key or tampered bytes.
    public static func open(_ sealed: [UInt8], with keyPair: KeyPair) throws -> SecureBytes {
        guard sealed.count >= overheadByteCount else { throw CryptoError.authenticationFailed }
        return try SecureBytes(count: sealed.count - overheadByteCount) { out in
            let status = keyPair.privateKey.withUnsafeBytes { k in
                crypto_box_seal_open(
                    out.baseAddress!.assumingMemoryBound(to: UInt8.self), sealed, UInt64(sealed.count),
                    keyPair.publicKey, k.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            guard status == 0 else { throw CryptoError.authenticationFailed }
        }
    }
}
