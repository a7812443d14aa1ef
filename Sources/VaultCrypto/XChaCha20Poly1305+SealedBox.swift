extension XChaCha20Poly1305 {
    /// The output of a seal: `nonce || ciphertext || tag`.
    public struct SealedBox: Sendable, Hashable {
        /// The combined representation, as stored.
        public let combined: [UInt8]

        /// Parses a combined representation.
        ///
        /// - Parameter combined: `nonce || ciphertext || tag`.
        /// - Throws: ``CryptoError/invalidLength(_:)`` when shorter than a nonce and a tag.
        public init(combined: [UInt8]) throws {
            guard combined.count >= XChaCha20Poly1305.nonceByteCount + XChaCha20Poly1305.tagByteCount
            else {
                throw CryptoError.invalidLength("a sealed box is at least 40 bytes")
            }
            self.combined = combined
        }

        init(validated combined: [UInt8]) {
            self.combined = combined
        }

        /// The nonce the box was sealed with.
        public var nonce: [UInt8] { Array(combined.prefix(XChaCha20Poly1305.nonceByteCount)) }

        /// The encrypted bytes, without nonce and tag.
        public var ciphertext: [UInt8] {
            Array(
                combined.dropFirst(XChaCha20Poly1305.nonceByteCount)
                    .dropLast(XChaCha20Poly1305.tagByteCount))
        }

        /// The 16-byte Poly1305 tag.
        public var tag: [UInt8] { Array(combined.suffix(XChaCha20Poly1305.tagByteCount)) }
    }
}
