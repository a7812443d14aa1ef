extension XChaCha20Poly1305 {
    /// A 24-byte XChaCha20-Poly1305 nonce. Random by default; large enough that random nonces
    /// never collide in practice.
    public struct Nonce: Sendable, Hashable {
        /// The nonce bytes (not secret).
        public let bytes: [UInt8]

        /// A fresh random nonce.
        public init() {
            self.bytes = SecureRandom.bytes(count: XChaCha20Poly1305.nonceByteCount)
        }

        /// A given nonce, for known-answer tests.
        ///
        /// - Parameter bytes: Exactly 24 bytes.
        /// - Throws: ``CryptoError/invalidLength(_:)`` for any other length.
        public init(bytes: [UInt8]) throws {
            guard bytes.count == XChaCha20Poly1305.nonceByteCount else {
                throw CryptoError.invalidLength("a nonce is \(XChaCha20Poly1305.nonceByteCount) bytes")
            }
            self.bytes = bytes
        }
    }
}
