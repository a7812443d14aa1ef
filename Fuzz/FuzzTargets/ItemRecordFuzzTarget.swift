import VaultCore
import VaultCrypto

/// The record decoders, on the plaintext a record's sealed blob opens to: item envelopes (with
/// access-controlled values inside), enrolled-factor records, and the sealed box itself.
package enum ItemRecordFuzzTarget: FuzzTarget {
    /// A fixed key: a fuzzer cannot forge a tag under it, so no random box may open.
    private static let key = SymmetricKey(copying: [UInt8](repeating: 0x4B, count: 32))

    /// Decodes `input` as each kind of record plaintext and checks that what decodes re-encodes
    /// to the same bytes, and that a read skipping the index terms decodes the same fields; then
    /// parses and opens it as a sealed box.
    ///
    /// - Parameter input: The bytes.
    package static func run(_ input: [UInt8]) {
        if let (name, encoded) = try? Vault.Fuzzing.reencodeItemEnvelope(input) {
            // The layout is canonical; only a name that is not UTF-8 comes back changed (with U+FFFD).
            require(
                encoded == input || name.unicodeScalars.contains("\u{FFFD}"),
                "an item envelope re-encodes to other bytes")
            let again = try? Vault.Fuzzing.reencodeItemEnvelope(encoded)
            require(again?.encoded == encoded, "a re-encoded item envelope does not decode to itself")
        }
        require(Vault.Fuzzing.skippingTermsAgrees(input), "a read skipping the index terms decodes other fields")
        if let encoded = try? Vault.Fuzzing.reencodeFactorRecord(input) {
            require(encoded == input, "a factor record re-encodes to other bytes")
        }
        if let box = try? XChaCha20Poly1305.SealedBox(combined: input) {
            require(box.nonce.count == XChaCha20Poly1305.nonceByteCount, "a sealed box's nonce has the wrong length")
            require(box.tag.count == XChaCha20Poly1305.tagByteCount, "a sealed box's tag has the wrong length")
            require(box.nonce + box.ciphertext + box.tag == input, "a sealed box's parts do not make it up")
            require((try? XChaCha20Poly1305.open(box, using: key)) == nil, "a forged sealed box opened")
        } else {
            require(
                input.count < XChaCha20Poly1305.nonceByteCount + XChaCha20Poly1305.tagByteCount,
                "a sealed box long enough was refused")
        }
        if let sealed = try? XChaCha20Poly1305.seal(input, using: key, authenticating: Array(input.prefix(8))) {
            let opened = try? XChaCha20Poly1305.open(sealed, using: key, authenticating: Array(input.prefix(8)))
            require(opened == input, "a sealed box does not open to what was sealed")
        } else {
            require(false, "sealing failed")
        }
    }
}
