import Foundation
import TokenVault
import VaultCrypto

/// Section 1: the library's public seal and open (`XChaCha20Poly1305`) beside direct libsodium
/// calls with the same key (the same secure memory), the same associated data and payload, in
/// interleaved rounds.
///
/// The raw seal draws a fresh random nonce (`randombytes_buf`) and encrypts into a buffer
/// allocated once: the least any random-nonce seal can do. The raw open decrypts into a buffer
/// allocated once. "raw AEAD only" encrypts under a fixed nonce, to show what the nonce draw costs.
struct SealBenchmark {
    /// The payload sizes measured.
    static let payloadSizes = [64, 256, 1024, 4096, 65536, 1 << 20]
    /// The associated data length: about what a vault record binds (tag, format, vault id,
    /// record id, kind, version, domain, policy).
    static let associatedDataByteCount = 72

    /// What was measured for one payload size.
    struct PayloadResult: Codable, Sendable {
        /// The plaintext length.
        let payloadBytes: Int
        /// `XChaCha20Poly1305.seal` (random nonce, new array).
        let librarySeal: VariantSummary
        /// `randombytes_buf` + `crypto_aead_xchacha20poly1305_ietf_encrypt` into a fixed buffer.
        let rawSeal: VariantSummary
        /// `crypto_aead_xchacha20poly1305_ietf_encrypt` alone, fixed nonce.
        let rawAEADOnly: VariantSummary
        /// `XChaCha20Poly1305.open(SealedBox(combined:))` (new array).
        let libraryOpen: VariantSummary
        /// `crypto_aead_xchacha20poly1305_ietf_decrypt` into a fixed buffer.
        let rawOpen: VariantSummary
        /// Library p50 / raw p50, per round.
        let sealRatio: RatioSummary
        /// Library p50 / raw p50, per round.
        let openRatio: RatioSummary
    }

    /// How each comparison is sampled.
    let sampler: Sampler

    /// Measures every payload size.
    func run(progress: (String) -> Void) throws -> [PayloadResult] {
        RawSodiumBaseline.ensureInitialized()
        let key = SymmetricKey()
        let associatedData = SecureRandom.bytes(count: Self.associatedDataByteCount)
        return try Self.payloadSizes.map { size in
            progress("seal/open \(Format.payload(size))")
            return try measure(size: size, key: key, associatedData: associatedData)
        }
    }

    private func measure(size: Int, key: SymmetricKey, associatedData: [UInt8]) throws -> PayloadResult {
        let payload = SecureRandom.bytes(count: size)
        let sealed = try XChaCha20Poly1305.seal(payload, using: key, authenticating: associatedData).combined
        let nonceCount = XChaCha20Poly1305.nonceByteCount
        let message = RawBuffer(copying: payload)
        let ad = RawBuffer(copying: associatedData)
        let nonce = RawBuffer(copying: SecureRandom.bytes(count: nonceCount))
        let output = RawBuffer(count: size + XChaCha20Poly1305.tagByteCount)
        let sealedNonce = RawBuffer(copying: sealed.prefix(nonceCount))
        let sealedCiphertext = RawBuffer(copying: sealed.dropFirst(nonceCount))
        let opened = RawBuffer(count: size)

        let variants = [
            Variant(name: "library seal") {
                blackHole(try XChaCha20Poly1305.seal(payload, using: key, authenticating: associatedData))
            },
            Variant(name: "raw seal") {
                RawSodiumBaseline.randomBytes(into: nonce.bytes)
                key.withUnsafeBytes { k in
                    RawSodiumBaseline.seal(
                        message.readOnly, key: k, nonce: nonce.readOnly, associatedData: ad.readOnly,
                        into: output.bytes)
                }
            },
            Variant(name: "raw AEAD only") {
                key.withUnsafeBytes { k in
                    RawSodiumBaseline.seal(
                        message.readOnly, key: k, nonce: nonce.readOnly, associatedData: ad.readOnly,
                        into: output.bytes)
                }
            },
            Variant(name: "library open") {
                blackHole(
                    try XChaCha20Poly1305.open(
                        XChaCha20Poly1305.SealedBox(combined: sealed), using: key, authenticating: associatedData))
            },
            Variant(name: "raw open") {
                let authentic = key.withUnsafeBytes { k in
                    RawSodiumBaseline.open(
                        sealedCiphertext.readOnly, key: k, nonce: sealedNonce.readOnly, associatedData: ad.readOnly,
                        into: opened.bytes)
                }
                guard authentic else { fatalError("the raw open did not authenticate its own box") }
            },
        ]
        let results = try sampler.run(variants)
        withExtendedLifetime((message, ad, nonce, output, sealedNonce, sealedCiphertext, opened)) {}
        func ratio(_ library: Int, _ raw: Int) -> RatioSummary {
            RatioSummary(zip(results[library].roundMedians, results[raw].roundMedians).map { $0 / $1 })
        }
        return PayloadResult(
            payloadBytes: size, librarySeal: results[0].summary(payloadBytes: size),
            rawSeal: results[1].summary(payloadBytes: size), rawAEADOnly: results[2].summary(payloadBytes: size),
            libraryOpen: results[3].summary(payloadBytes: size), rawOpen: results[4].summary(payloadBytes: size),
            sealRatio: ratio(0, 1), openRatio: ratio(3, 4))
    }

    /// The throughput table and the latency table.
    static func tables(_ results: [PayloadResult]) -> [TextTable] {
        var throughput = TextTable([
            "payload", "library seal op/s", "raw seal op/s", "seal library/raw", "library open op/s", "raw open op/s",
            "open library/raw", "library seal MB/s", "library open MB/s",
        ])
        var latency = TextTable([
            "payload (p50 / p99)", "library seal", "raw seal", "raw AEAD only", "library open", "raw open",
        ])
        for result in results {
            throughput.add([
                Format.payload(result.payloadBytes), Format.count(result.librarySeal.operationsPerSecond),
                Format.count(result.rawSeal.operationsPerSecond), Format.ratio(result.sealRatio),
                Format.count(result.libraryOpen.operationsPerSecond), Format.count(result.rawOpen.operationsPerSecond),
                Format.ratio(result.openRatio), Format.megabytesPerSecond(result.librarySeal.megabytesPerSecond),
                Format.megabytesPerSecond(result.libraryOpen.megabytesPerSecond),
            ])
            latency.add([
                Format.payload(result.payloadBytes), Format.percentiles(result.librarySeal.latency),
                Format.percentiles(result.rawSeal.latency), Format.percentiles(result.rawAEADOnly.latency),
                Format.percentiles(result.libraryOpen.latency), Format.percentiles(result.rawOpen.latency),
            ])
        }
        return [throughput, latency]
    }
}
