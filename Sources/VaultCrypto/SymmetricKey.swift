/// A secret key held in ``SecureBytes``.
///
/// Keys are 16 to 64 bytes; ciphers check the exact size they need.
public struct SymmetricKey: Sendable, Equatable, CustomStringConvertible {
    /// The key bytes, in guarded memory.
    public let secureBytes: SecureBytes

    /// The key length in bytes.
    public var byteCount: Int { secureBytes.count }

    /// A new random key.
    ///
    /// - Parameter byteCount: The key length; 32 by default.
    public init(randomByteCount byteCount: Int = 32) {
        self.secureBytes = .random(count: byteCount)
    }

    /// A key over bytes already in secure memory.
    ///
    /// - Parameter secureBytes: The key bytes.
    public init(secureBytes: SecureBytes) {
        self.secureBytes = secureBytes
    }

    /// A key copied from ordinary memory (test vectors, key files read by the caller).
    ///
    /// - Parameter bytes: The key bytes; wipe your own copy afterwards.
    public init(copying bytes: some Collection<UInt8>) {
        self.secureBytes = SecureBytes(copying: bytes)
    }

    /// Calls `body` with the key bytes. The view must not escape the closure.
    ///
    /// - Parameter body: Reads the key.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withUnsafeBytes<Result>(
        _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        try secureBytes.withUnsafeBytes(body)
    }

    /// A redacted description giving only the length.
    public var description: String { "SymmetricKey(\(byteCount * 8) bits, redacted)" }

    func requireByteCount(_ expected: Int, for use: String) throws {
        guard byteCount == expected else {
            throw CryptoError.invalidLength("\(use) needs a \(expected)-byte key, got \(byteCount)")
        }
    }
}
