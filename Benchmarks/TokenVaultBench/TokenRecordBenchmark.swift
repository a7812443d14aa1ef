import Credentials
import Foundation
import TokenVault
import VaultCrypto

/// Section 1, end to end: one realistic token record (``TokenFixtures``) serialised and sealed,
/// then opened and decoded, the way `VaultTokenStorage` does it: the metadata and the token each
/// in `TokenRecordCoding`'s binary form (the library's own encoder and decoder), one seal of both
/// with a record-sized associated data. Beside it, each step alone, a raw libsodium seal of the same
/// bytes, and the legacy JSON form (`{"v":1,"value":…}` per half) that records written before the
/// binary form still decode through.
struct TokenRecordBenchmark {
    /// What was measured.
    struct Result: Codable, Sendable {
        /// The token half's length (binary form).
        let tokenBytes: Int
        /// The metadata half's length (binary form: tags and the ID token's payload part).
        let metadataBytes: Int
        /// The same two halves' length in the legacy JSON form.
        let legacyJSONBytes: Int
        /// The sealed record's length.
        let sealedBytes: Int
        /// Serialise token and metadata, then seal: the first goal's operation.
        let serializeAndSeal: VariantSummary
        /// Open, then decode token and metadata: the second goal's operation.
        let openAndDecode: VariantSummary
        /// Serialising alone.
        let serializeOnly: VariantSummary
        /// The library seal of the serialised record alone.
        let sealOnly: VariantSummary
        /// A raw libsodium seal of the same bytes.
        let rawSeal: VariantSummary
        /// Decoding alone.
        let decodeOnly: VariantSummary
        /// Decoding the metadata alone: what `find` and `allIDs` decode for every stored token.
        let decodeMetadataOnly: VariantSummary
        /// Decoding the metadata and reading a claim: the lazy parse `find` by claim pays.
        let decodeMetadataAndReadClaim: VariantSummary
        /// The library open alone.
        let openOnly: VariantSummary
        /// Serialise in the legacy JSON form, then seal: what a write cost before.
        let legacySerializeAndSeal: VariantSummary
        /// Open, then decode the legacy JSON form: what reading a record written before costs.
        let legacyOpenAndDecode: VariantSummary
    }

    /// The legacy JSON form's wrapper, so its bytes are those `VaultTokenStorage` wrote.
    private struct Versioned<Value: Codable>: Codable {
        let v: Int
        let value: Value
    }

    /// How the comparison is sampled.
    let sampler: Sampler

    /// Measures the record.
    func run() throws -> Result {
        RawSodiumBaseline.ensureInitialized()
        let token = try TokenFixtures.token(1)
        let metadata = Token.Metadata(token: token, tags: TokenFixtures.tags(1))
        let key = SymmetricKey()
        let associatedData = SecureRandom.bytes(count: SealBenchmark.associatedDataByteCount)

        func serialize() throws -> [UInt8] {
            Self.envelope(try TokenRecordCoding.encode(metadata), TokenRecordCoding.encode(token))
        }
        func decode(_ record: [UInt8]) throws -> (Token.Metadata, Token) {
            let (metadataBytes, tokenBytes) = Self.split(record)
            return (try TokenRecordCoding.decodeMetadata(metadataBytes), try TokenRecordCoding.decodeToken(tokenBytes))
        }
        func serializeLegacy() throws -> [UInt8] {
            Self.envelope(
                Array(try JSONEncoder().encode(Versioned(v: 1, value: metadata))),
                Array(try JSONEncoder().encode(Versioned(v: 1, value: token))))
        }
        let record = try serialize()
        let sealed = try XChaCha20Poly1305.seal(record, using: key, authenticating: associatedData).combined
        let (roundTripMetadata, roundTripToken) = try decode(record)
        precondition(roundTripToken == token, "the token does not round-trip")
        precondition(roundTripMetadata == metadata, "the metadata does not round-trip")
        precondition(roundTripMetadata.email == TokenFixtures.email(1), "the claims do not round-trip")
        let legacyRecord = try serializeLegacy()
        let legacySealed = try XChaCha20Poly1305.seal(legacyRecord, using: key, authenticating: associatedData)
            .combined
        let legacyToken = try decode(legacyRecord).1
        precondition(legacyToken == token, "the legacy form does not decode")
        let message = RawBuffer(copying: record)
        let ad = RawBuffer(copying: associatedData)
        let nonce = RawBuffer(count: XChaCha20Poly1305.nonceByteCount)
        let output = RawBuffer(count: record.count + XChaCha20Poly1305.tagByteCount)

        let results = try sampler.run([
            Variant(name: "serialize + seal") {
                blackHole(try XChaCha20Poly1305.seal(serialize(), using: key, authenticating: associatedData))
            },
            Variant(name: "open + decode") {
                let opened = try XChaCha20Poly1305.open(
                    XChaCha20Poly1305.SealedBox(combined: sealed), using: key, authenticating: associatedData)
                blackHole(try decode(opened))
            },
            Variant(name: "serialize only") { blackHole(try serialize()) },
            Variant(name: "seal only") {
                blackHole(try XChaCha20Poly1305.seal(record, using: key, authenticating: associatedData))
            },
            Variant(name: "raw seal") {
                RawSodiumBaseline.randomBytes(into: nonce.bytes)
                key.withUnsafeBytes { k in
                    RawSodiumBaseline.seal(
                        message.readOnly, key: k, nonce: nonce.readOnly, associatedData: ad.readOnly,
                        into: output.bytes)
                }
            },
            Variant(name: "decode only") { blackHole(try decode(record)) },
            Variant(name: "decode metadata only") {
                blackHole(try TokenRecordCoding.decodeMetadata(Self.split(record).0))
            },
            Variant(name: "decode metadata + read a claim") {
                blackHole(try TokenRecordCoding.decodeMetadata(Self.split(record).0).email)
            },
            Variant(name: "open only") {
                blackHole(
                    try XChaCha20Poly1305.open(
                        XChaCha20Poly1305.SealedBox(combined: sealed), using: key, authenticating: associatedData))
            },
            Variant(name: "legacy serialize + seal") {
                blackHole(try XChaCha20Poly1305.seal(serializeLegacy(), using: key, authenticating: associatedData))
            },
            Variant(name: "legacy open + decode") {
                let opened = try XChaCha20Poly1305.open(
                    XChaCha20Poly1305.SealedBox(combined: legacySealed), using: key, authenticating: associatedData)
                blackHole(try decode(opened))
            },
        ])
        withExtendedLifetime((message, ad, nonce, output)) {}
        let (metadataBytes, tokenBytes) = Self.split(record)
        return Result(
            tokenBytes: tokenBytes.count, metadataBytes: metadataBytes.count, legacyJSONBytes: legacyRecord.count - 8,
            sealedBytes: sealed.count,
            serializeAndSeal: results[0].summary(payloadBytes: record.count),
            openAndDecode: results[1].summary(payloadBytes: record.count),
            serializeOnly: results[2].summary(payloadBytes: record.count),
            sealOnly: results[3].summary(payloadBytes: record.count),
            rawSeal: results[4].summary(payloadBytes: record.count),
            decodeOnly: results[5].summary(payloadBytes: record.count),
            decodeMetadataOnly: results[6].summary(payloadBytes: metadataBytes.count),
            decodeMetadataAndReadClaim: results[7].summary(payloadBytes: metadataBytes.count),
            openOnly: results[8].summary(payloadBytes: record.count),
            legacySerializeAndSeal: results[9].summary(payloadBytes: legacyRecord.count),
            legacyOpenAndDecode: results[10].summary(payloadBytes: legacyRecord.count))
    }

    /// The goal both timed operations are held to, p50 in nanoseconds.
    static let goalNanoseconds = 5_000.0

    /// The table.
    static func table(_ result: Result) -> TextTable {
        var table = TextTable(["token record step", "p50", "p99", "op/s"])
        let rows: [(String, VariantSummary)] = [
            ("serialize + seal (goal: p50 <= 5 µs)", result.serializeAndSeal),
            ("open + decode (goal: p50 <= 5 µs)", result.openAndDecode),
            (
                "  serialize only (binary, \(Format.bytes(Double(result.tokenBytes + result.metadataBytes))))",
                result.serializeOnly
            ),
            ("  seal only (library)", result.sealOnly),
            ("  seal only (raw libsodium, same bytes)", result.rawSeal),
            ("  decode only (claims not parsed)", result.decodeOnly),
            ("  decode metadata only (find/allIDs, per token)", result.decodeMetadataOnly),
            ("  decode metadata + read a claim (find by claim)", result.decodeMetadataAndReadClaim),
            ("  open only (library)", result.openOnly),
            (
                "legacy JSON serialize + seal (\(Format.bytes(Double(result.legacyJSONBytes))))",
                result.legacySerializeAndSeal
            ),
            ("legacy JSON open + decode (records written before)", result.legacyOpenAndDecode),
        ]
        for (name, summary) in rows {
            table.add([
                name, Format.duration(nanoseconds: summary.latency.p50Ns),
                Format.duration(nanoseconds: summary.latency.p99Ns), Format.count(summary.operationsPerSecond),
            ])
        }
        return table
    }

    /// Metadata and token, each behind a 4-byte length, as the vault's envelope holds them.
    private static func envelope(_ metadata: [UInt8], _ token: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(metadata.count + token.count + 8)
        for part in [metadata, token] {
            withUnsafeBytes(of: UInt32(part.count).littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: part)
        }
        return bytes
    }

    private static func split(_ record: [UInt8]) -> ([UInt8], [UInt8]) {
        func length(at offset: Int) -> Int {
            Int(record[offset]) | Int(record[offset + 1]) << 8 | Int(record[offset + 2]) << 16
                | Int(record[offset + 3]) << 24
        }
        let metadataCount = length(at: 0)
        let tokenStart = 4 + metadataCount + 4
        return (
            Array(record[4..<(4 + metadataCount)]),
            Array(record[tokenStart..<(tokenStart + length(at: 4 + metadataCount))])
        )
    }
}
