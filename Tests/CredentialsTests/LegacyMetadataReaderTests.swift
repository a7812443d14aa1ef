import Credentials
import Foundation
import TestSupport
import Testing
import TokenVault
import VaultCore

/// The upgrade's reader of legacy JSON metadata (`LegacyMetadataReader`, through
/// `TokenRecordCoding.upgradedMetadata`) against what it replaced, `JSONDecoder`'s reading encoded
/// again: on real legacy records and on hand-made edge cases, both give the same metadata and
/// terms or the same typed error, and the reader never accepts bytes the decoder refuses.
@Suite struct LegacyMetadataReaderTests {
    /// What the upgrade made of `bytes` before the reader: decoded by `JSONDecoder`, encoded again.
    static func reference(_ bytes: [UInt8]) throws -> (Token.Metadata, Set<IndexTerm>) {
        let metadata = try TokenRecordCoding.decodeMetadata(bytes)
        _ = try TokenRecordCoding.encode(metadata)
        return (metadata, Set(metadata.indexTerms))
    }

    /// What the upgrade makes of `bytes` now, read back.
    static func upgraded(_ bytes: [UInt8]) throws -> (Token.Metadata, Set<IndexTerm>) {
        let (metadata, terms) = try TokenRecordCoding.upgradedMetadata(bytes)
        #expect(metadata.first == TokenRecordCoding.formatMarker)
        return (try TokenRecordCoding.decodeMetadata(metadata), Set(terms))
    }

    /// Checks that the upgrade reads `bytes` as `JSONDecoder` did and, when `readsItself` is given,
    /// whether the reader decided without the decoder.
    func expectSameReading(
        _ bytes: [UInt8], readsItself: Bool? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let expected = Result { try Self.reference(bytes) }
        let actual = Result { try Self.upgraded(bytes) }
        switch (expected, actual) {
        case (.success(let expected), .success(let actual)):
            #expect(actual.0 == expected.0, sourceLocation: sourceLocation)
            #expect(actual.0.id == expected.0.id, sourceLocation: sourceLocation)
            #expect(actual.0.tags == expected.0.tags, sourceLocation: sourceLocation)
            #expect(actual.0.claims == expected.0.claims, sourceLocation: sourceLocation)
            #expect(actual.1 == expected.1, sourceLocation: sourceLocation)
        case (.failure(let expected), .failure(let actual)):
            #expect(actual as? CredentialError == expected as? CredentialError, sourceLocation: sourceLocation)
            #expect(actual is CredentialError, sourceLocation: sourceLocation)
        default:
            Issue.record("the upgrade and JSONDecoder disagree on \(bytes.count) bytes", sourceLocation: sourceLocation)
        }
        let read = LegacyMetadataReader.read(bytes, version: 1, indexing: Token.Metadata.indexedClaims)
        if case .failure = expected {
            #expect(read == nil, "the reader accepted bytes JSONDecoder refuses", sourceLocation: sourceLocation)
        }
        if let readsItself {
            #expect((read != nil) == readsItself, sourceLocation: sourceLocation)
        }
    }

    func expectSameReading(_ json: String, readsItself: Bool? = nil, sourceLocation: SourceLocation = #_sourceLocation)
    {
        expectSameReading(Array(json.utf8), readsItself: readsItself, sourceLocation: sourceLocation)
    }

    // MARK: Real legacy records

    /// Metadata as `VaultTokenStorage` wrote it before the binary form, with the JSON encoder.
    static var legacyRecords: [[UInt8]] {
        get throws {
            let full = TokenRecordCodingTests.fullToken
            let fromResponse = TestTokens.token(subject: "alice@example.com", roles: ["admin", "user"])
            return try [
                TokenRecordCodingTests.legacy(Token.Metadata(token: full, tags: ["user": "jane", "team": "a/b"])),
                TokenRecordCodingTests.legacy(Token.Metadata(token: fromResponse, tags: [:])),
                TokenRecordCodingTests.legacy(Token.Metadata(token: TokenRecordCodingTests.minimalToken, tags: [:])),
                TokenRecordCodingTests.legacy(
                    Token.Metadata(
                        id: "tok-\u{1F511}", tags: ["naïve": "ключ \"quoted\" \\ / \n\t", "": ""],
                        claims: [
                            "sub": .string("jane"), "email": .array([.string("a@example.com"), .bool(true), .null]),
                            "preferred_username": .bool(false), "exp": .number(1_700_003_600), "ratio": .number(0.25),
                            "nested": .object(["a": .array([.number(-1), .object([:]), .null])]),
                            "name": .string("José \u{1F600}"),
                        ])),
            ]
        }
    }

    @Test func readsRealLegacyRecordsItselfAsJSONDecoderDid() throws {
        for record in try Self.legacyRecords {
            expectSameReading(record, readsItself: true)
        }
    }

    /// The token of the committed format version 1 vault, whose metadata the old encoder wrote.
    @Test func readsTheCommittedFixturesTokenItself() throws {
        let scratch = TemporaryDirectory()
        let url = try Fixtures.copy("format-v1.vault", to: scratch)
        let keyFile = try Fixtures.copy("format-v1.key", to: scratch)
        let vault = try Vault.open(at: url, unlock: .keyFile(keyFile))
        let records = try vault.allTokenRecordMetadata()
        #expect(records.count == 1)
        for record in records {
            #expect(record.metadata.first == UInt8(ascii: "{"))
            expectSameReading(record.metadata, readsItself: true)
            #expect(try Self.upgraded(record.metadata).1.contains(.claim("sub", equals: "fixture@example.com")))
        }
    }

    /// Every truncation of a real record is refused, with the one typed error.
    @Test func everyTruncationIsACorruptRecord() throws {
        let record = try #require(try Self.legacyRecords.first)
        for count in 1..<record.count {
            let bytes = Array(record.prefix(count))
            #expect(LegacyMetadataReader.read(bytes, version: 1, indexing: Token.Metadata.indexedClaims) == nil)
            #expect(throws: CredentialError.corruptRecord("a token record does not decode")) {
                try TokenRecordCoding.upgradedMetadata(bytes)
            }
        }
    }

    // MARK: Edge cases

    @Test func readsWhatItCanDecideItself() {
        expectSameReading(#"{"v":1,"value":{"id":"a","tags":{},"claims":{}}}"#, readsItself: true)
        expectSameReading(
            "{\n\t\"value\" : { \"claims\" : { \"sub\" : \"x\" } , \"tags\" : { \"k\" : \"v\" } , \"id\" : \"a\" } ,"
                + " \"v\" : 1 } \r\n", readsItself: true)
        expectSameReading(
            #"{"v":1,"value":{"id":"a\"b\\c\/d\n\u00e9\u0000","tags":{"k\"\u20ac":"v\t\b\f\r"},"claims":{ }}}"#,
            readsItself: true)
        expectSameReading(
            #"{"v":1,"value":{"id":"é","tags":{"ключ":"значение"},"claims":{"name":"José","sub":"ü\u00fc"}}}"#,
            readsItself: true)
        expectSameReading(
            #"{"v":1,"value":{"id":"a","tags":{},"claims":{"n":-0,"m":1.5,"k":0,"big":12345678901234567,"f":false}}}"#,
            readsItself: true)
        // A repeated claim: JSONDecoder keeps the first, and so does the index.
        expectSameReading(
            #"{"v":1,"value":{"id":"a","tags":{},"claims":{"sub":"first","x":{"y":1,"y":2},"sub":"second"}}}"#,
            readsItself: true)
        expectSameReading(
            #"{"v":1,"value":{"id":"a","tags":{},"claims":{"email":["a@x","b@x",true,null],"sub":null}}}"#,
            readsItself: true)
        expectSameReading(
            #"{"v":1,"value":{"id":"a","tags":{},"claims":{"addr":{"a":[1,{"b":null}],"c":{},"d":[]},"e":"\u00e9"}}}"#,
            readsItself: true)
    }

    /// What the reader leaves to `JSONDecoder`, which accepts it.
    @Test func leavesTheRestToJSONDecoder() {
        let cases = [
            #"{"v":1,"value":{"id":"a","tags":{},"claims":{"n":1e5,"m":1E-2}}}"#,
            #"{"v":1,"value":{"id":"a","tags":{},"claims":{"n":123456789012345678901234567890}}}"#,
            #"{"v":1,"value":{"id":"a","tags":{},"claims":{"sub":42}}}"#,
            #"{"v":1,"value":{"id":"a","tags":{},"claims":{"e":"\ud83d\udE00"}}}"#,
            #"{"v":1,"value":{"id":"a","tags":{},"claims":{"sub":["x",7]}}}"#,
            #"{"v":1,"value":{"id":"a","tags":{},"claims":{"sub":{"x":"y"}}}}"#,
            #"{"v":1,"value":{"id":"a","tags":{},"claims":{"s\u0075b":"x"}}}"#,
            #"{"v":1,"value":{"id":"a","tags":{},"claims":{"a":1,}}}"#,
            #"{"v":1,"value":{"id":"a","tags":{"k":"1","k":"2"},"claims":{}}}"#,
            #"{"v":1,"value":{"id":"a","id":"b","tags":{},"claims":{}}}"#,
            #"{"v":1,"value":{"id":"a","tags":{},"claims":{},"extra":[1]}}"#,
            #"{"v":1.0,"value":{"id":"a","tags":{},"claims":{}}}"#,
            #"{"v":1,"v":1,"value":{"id":"a","tags":{},"claims":{}}}"#,
            #"{"v":1,"value":{"id":"a","tags":{},"claims":{"deep":"# + String(repeating: "[", count: 40)
                + String(repeating: "]", count: 40) + "}}}",
        ]
        for json in cases {
            expectSameReading(json, readsItself: false)
        }
    }

    /// Malformed metadata gives the typed error JSONDecoder's reading gave, and the reader never
    /// accepts it.
    @Test func malformedLegacyMetadataIsATypedError() {
        let corrupt = [
            #"{"v":1,"value":{"id":"a","tags":{},"claims":{"n":01}}}"#,
            #"{"v":1,"value":{"id":"a","tags":{},"claims":{"n":1.}}}"#,
            #"{"v":1,"value":{"id":"a","tags":{},"claims":{"n":-}}}"#,
            #"{"v":1,"value":{"id":"a","tags":{},"claims":{"n":1e400}}}"#,
            #"{"v":1,"value":{"id":"a","tags":{},"claims":{"s":"\ud800"}}}"#,
            #"{"v":1,"value":{"id":"a","tags":{},"claims":{"s":"\x"}}}"#,
            "{\"v\":1,\"value\":{\"id\":\"a\",\"tags\":{},\"claims\":{\"s\":\"\u{1}\"}}}",
            #"{"v":1,"value":{"id":"a","tags":{},"claims":{"s":tru}}}"#,
            #"{"v":1,"value":{"id":"a","tags":{}}}"#,
            #"{"v":1,"value":{"id":"a","tags":{"k":1},"claims":{}}}"#,
            #"{"v":1,"value":{"id":7,"tags":{},"claims":{}}}"#,
            #"{"v":"1","value":{"id":"a","tags":{},"claims":{}}}"#,
            #"{"value":{"id":"a","tags":{},"claims":{}}}"#,
            #"{"v":1,"value":{"id":"a","tags":{},"claims":{}}}x"#,
            #" {"v":1,"value":{"id":"a","tags":{},"claims":{}}}"#,
            #"{"v":1,"value":{"id":"a","tags":{},"claims":[]}}"#,
            #"{"v":1,"value":{"id":"a","tags":{},"claims":{"a" 1}}}"#,
        ]
        for json in corrupt {
            expectSameReading(json, readsItself: false)
            #expect(throws: CredentialError.corruptRecord("a token record does not decode")) {
                try TokenRecordCoding.upgradedMetadata(Array(json.utf8))
            }
        }
        var invalidUTF8 = Array(#"{"v":1,"value":{"id":"a","tags":{"k":"v"},"claims":{"s":"x"}}}"#.utf8)
        invalidUTF8[invalidUTF8.firstIndex(of: UInt8(ascii: "x"))!] = 0xC3
        expectSameReading(invalidUTF8, readsItself: false)
        #expect(throws: CredentialError.self) { try TokenRecordCoding.upgradedMetadata(invalidUTF8) }

        let later = #"{"v":2,"value":{"id":"a","tags":{},"claims":{}}}"#
        expectSameReading(later, readsItself: false)
        #expect(throws: CredentialError.storage(.unsupportedFormat("token record version 2"))) {
            try TokenRecordCoding.upgradedMetadata(Array(later.utf8))
        }
    }
}
