import VaultCrypto

extension Vault {
    /// The decoders the vault runs on bytes it reads back, for the fuzz targets under `Fuzz/`.
    ///
    /// Each entry point decodes exactly as the vault does and, where that succeeds, encodes the value
    /// again, so a fuzz target can check that decoding and encoding agree. Package-internal, not
    /// public API.
    package enum Fuzzing {
        /// Decodes the plaintext of an item record (what its sealed blob opens to) and encodes it again.
        ///
        /// - Parameter bytes: The plaintext.
        /// - Returns: The decoded item name and the re-encoded plaintext.
        /// - Throws: ``VaultError`` when the bytes are not an item record.
        package static func reencodeItemEnvelope(_ bytes: [UInt8]) throws -> (name: String, encoded: [UInt8]) {
            let envelope = try ItemEnvelope(decoding: bytes)
            return (envelope.name, envelope.bytes)
        }

        /// Whether a read that skips the index terms decodes what a full decode does: the same
        /// name, metadata and value whenever the full decode succeeds.
        ///
        /// - Parameter bytes: The plaintext.
        /// - Returns: `true` when the full decode fails or both agree.
        package static func skippingTermsAgrees(_ bytes: [UInt8]) -> Bool {
            guard let full = try? ItemEnvelope(decoding: bytes) else { return true }
            guard let skipped = try? ItemEnvelope(decoding: bytes, readingTerms: false), skipped.terms == nil else {
                return false
            }
            return ItemEnvelope(
                name: skipped.name, metadata: skipped.metadata, terms: full.terms, content: skipped.content
            )
            .bytes == full.bytes
        }

        /// Decodes the plaintext of an enrolled-factor record and encodes it again.
        ///
        /// - Parameter bytes: The plaintext.
        /// - Returns: The re-encoded plaintext.
        /// - Throws: ``VaultError`` when the bytes are not a factor record.
        package static func reencodeFactorRecord(_ bytes: [UInt8]) throws -> [UInt8] {
            try FactorRecord(decoding: bytes).bytes
        }

        /// Decodes a key slot's payload (what its wrapped blob opens to), builds the key ring it
        /// unlocks, and encodes the payload again.
        ///
        /// - Parameter bytes: The payload.
        /// - Returns: Whether the payload is scoped to access groups, and its re-encoding.
        /// - Throws: ``VaultError`` when the bytes are not a slot payload.
        package static func reencodeSlotPayload(_ bytes: SecureBytes) throws -> (isScoped: Bool, encoded: SecureBytes) {
            let payload = try SlotPayload(decoding: bytes)
            _ = try KeyRing(payload)
            return (payload.isScoped, payload.encoded())
        }
    }
}
