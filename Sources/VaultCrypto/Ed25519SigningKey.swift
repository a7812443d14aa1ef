internal import CSodium

/// An Ed25519 private key that signs (libsodium's `crypto_sign_*`), kept in ``SecureBytes``.
///
/// The 32-byte seed is the whole secret: the key is stored as its seed and rebuilt from it, and
/// libsodium's 64-byte secret key (seed and public key) lives only in guarded memory too. The
/// description shows the public key's length, never a byte of the secret.
public final class Ed25519SigningKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The length of a seed.
    public static let seedCount = Int(crypto_sign_SEEDBYTES)

    /// The seed.
    private let seed: SecureBytes
    /// libsodium's secret key: the seed followed by the public key.
    private let secretKey: SecureBytes
    /// The 32-byte public key.
    public let publicKey: [UInt8]

    /// A new key from libsodium's CSPRNG.
    public convenience init() {
        // Known length: a random seed of the right size cannot be refused.
        try! self.init(seed: SecureBytes.random(count: Self.seedCount))
    }

    /// The key a seed determines.
    ///
    /// - Parameter seed: The 32-byte seed.
    /// - Throws: ``CryptoError/invalidLength(_:)`` for a seed of another length.
    public init(seed: SecureBytes) throws(CryptoError) {
        guard seed.count == Self.seedCount else {
            throw CryptoError.invalidLength("an Ed25519 seed is \(Self.seedCount) bytes")
        }
        SodiumRuntime.ensureInitialized()
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_sign_PUBLICKEYBYTES))
        secretKey = SecureBytes(count: Int(crypto_sign_SECRETKEYBYTES)) { secret in
            seed.withUnsafeBytes { seed in
                _ = crypto_sign_seed_keypair(
                    &publicKey, secret.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    seed.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        self.seed = seed
        self.publicKey = publicKey
    }

    /// Calls `body` with the seed, for sealing the key in storage. The view must not escape.
    ///
    /// - Parameter body: Reads the 32 bytes.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withSeed<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try seed.withUnsafeBytes(body)
    }

    /// The 64-byte Ed25519 signature of `message`. Wraps `crypto_sign_detached`.
    ///
    /// - Parameter message: The bytes to sign.
    /// - Returns: The signature.
    public func signature(for message: [UInt8]) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: Int(crypto_sign_BYTES))
        secretKey.withUnsafeBytes { secret in
            _ = crypto_sign_detached(
                &signature, nil, message, UInt64(message.count), secret.baseAddress!.assumingMemoryBound(to: UInt8.self)
            )
        }
        return signature
    }

    /// Whether both keys have the same seed (constant time).
    public func isSameKey(as other: Ed25519SigningKey) -> Bool { seed == other.seed }

    /// Says what the key is, never a byte of it.
    public var description: String { "Ed25519SigningKey(redacted)" }
    /// The same redacted text as ``description``.
    public var debugDescription: String { description }
    /// What `dump()` and debuggers show: nothing of the key.
    public var customMirror: Mirror { Mirror(self, children: [:], displayStyle: .class) }
}
