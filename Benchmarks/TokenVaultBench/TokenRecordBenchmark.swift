import Foundation
import TokenVault
import VaultCrypto

/// Section 1, end to end: one realistic token record (``TokenFixtures``) serialised and sealed,
/// then opened and decoded, the way `VaultTokenStorage` does it: a new `JSONEncoder` per call,
/// the token and its metadata each in a `{"v":1,"value":…}` wrapper, one seal of both with a
/// record-sized associated data. Beside it, each step alone and a raw seal of the same size.
struct TokenRecordBenchmark {
    /// What was measured.
    struct Result: Codable, Sendable {
        /// The token's JSON length.
        let tokenJSONBytes: Int
        /// The metadata's JSON length (tags and ID-token claims).
        let metadataJSONBytes: Int
        /// The sealed record's length.
        let sealedBytes: Int
        /// Serialise token and metadata, then seal: the goal's operation.
        let serializeAndSeal: VariantSummary
        /// Open, then decode token and metadata.
        let openAndDecode: VariantSummary
        /// Serialising alone.
        let serializeOnly: VariantSummary
        /// The library seal of the serialised record alone.
        let sealOnly: VariantSummary
        /// A raw libsodium seal of the same size.
        let rawSeal: VariantSummary
        /// Decoding alone.
        let decodeOnly: VariantSummary
        /// Decoding the metadata alone: what `find` and `allIDs` decode for every stored token.
        let decodeMetadataOnly: VariantSummary
        /// The library open alone.
        let openOnly: VariantSummary
    }

    /// The same wrapper `VaultTokenStorage` writes, so the JSON is byte for byte the same shape.
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
            let metadataJSON = Array(try JSONEncoder().encode(Versioned(v: 1, value: metadata)))
            let tokenJSON = Array(try JSONEncoder().encode(Versioned(v: 1, value: token)))
            return Self.envelope(metadataJSON, tokenJSON)
        }
        func decode(_ record: [UInt8]) throws -> (Token.Metadata, Token) {
            let (metadataJSON, tokenJSON) = Self.split(record)
            return (
                try JSONDecoder().decode(Versioned<Token.Metadata>.self, from: Data(metadataJSON)).value,
                try JSONDecoder().decode(Versioned<Token>.self, from: Data(tokenJSON)).value
            )
        }
        let record = try serialize()
        let sealed = try XChaCha20Poly1305.seal(record, using: key, authenticating: associatedData).combined
        let roundTrip = try decode(record).1
        precondition(roundTrip == token, "the token record does not round-trip")
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
                blackHole(try JSONDecoder().decode(Versioned<Token.Metadata>.self, from: Data(Self.split(record).0)))
            },
            Variant(name: "open only") {
                blackHole(
                    try XChaCha20Poly1305.open(
                        XChaCha20Poly1305.SealedBox(combined: sealed), using: key, authenticating: associatedData))
            },
        ])
        withExtendedLifetime((message, ad, nonce, output)) {}
        let (metadataJSON, tokenJSON) = Self.split(record)
        return Result(
            tokenJSONBytes: tokenJSON.count, metadataJSONBytes: metadataJSON.count, sealedBytes: sealed.count,
            serializeAndSeal: results[0].summary(payloadBytes: record.count),
            openAndDecode: results[1].summary(payloadBytes: record.count),
            serializeOnly: results[2].summary(payloadBytes: record.count),
            sealOnly: results[3].summary(payloadBytes: record.count),
            rawSeal: results[4].summary(payloadBytes: record.count),
            decodeOnly: results[5].summary(payloadBytes: record.count),
            decodeMetadataOnly: results[6].summary(payloadBytes: record.count),
            openOnly: results[7].summary(payloadBytes: record.count))
    }

    /// The table.
    static func table(_ result: Result) -> TextTable {
        var table = TextTable(["token record step", "p50", "p99", "op/s"])
        let rows: [(String, VariantSummary)] = [
            ("serialize + seal (goal: p50 < 10 µs)", result.serializeAndSeal),
            ("open + decode", result.openAndDecode),
            ("  serialize only (2 × JSONEncoder)", result.serializeOnly),
            ("  seal only (library)", result.sealOnly),
            ("  seal only (raw libsodium)", result.rawSeal),
            ("  decode only (2 × JSONDecoder)", result.decodeOnly),
            ("  decode metadata only (find/allIDs, per token)", result.decodeMetadataOnly),
            ("  open only (library)", result.openOnly),
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
