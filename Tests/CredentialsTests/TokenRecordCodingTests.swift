import Credentials
import Foundation
import TestSupport
import Testing
import TokenVault
import VaultCore

/// The token record's binary encoding (`TokenRecordCoding`): every field round-trips, the legacy
/// JSON form still reads, and malformed bytes are typed errors that name no secret.
@Suite struct TokenRecordCodingTests {
    /// Every optional present, dates and lifetime with fractions no decimal text keeps exactly.
    static var fullToken: Token {
        Token(
            id: "tok-é-\u{1F511}", tokenType: "DPoP", accessToken: "access-token-secret-0123456789",
            refreshToken: "refresh-token-secret",
            idToken: try! JWT(
                TestTokens.jwt([
                    "sub": "jane", "email": "jane@example.com", "roles": ["admin", "user"], "exp": 1_700_003_600,
                    "nested": ["a": 1] as [String: Any],
                ])),
            deviceSecret: "device-secret-value", scope: ["openid", "profile", "api.read"],
            issuedAt: Date(timeIntervalSinceReferenceDate: 786_412_345.123_456_7),
            expiresIn: 3599.000_000_1,
            context: Token.Context(
                issuer: URL(string: "https://issuer.example.com/tenant/v2.0?x=1")!, clientID: "client-ü",
                clientSecret: "client-secret-value", scopes: ["openid", "offline_access"]))
    }

    /// No optional at all, empty strings and lists where the type allows them.
    static var minimalToken: Token {
        Token(
            id: "", tokenType: "Bearer", accessToken: "a", refreshToken: nil, idToken: nil, deviceSecret: nil,
            scope: nil, issuedAt: Date(timeIntervalSince1970: 0), expiresIn: 0,
            context: Token.Context(issuer: URL(string: "https://i.example")!, clientID: ""))
    }

    /// The legacy encoder, as `VaultTokenStorage` wrote records before the binary form.
    struct Versioned<Value: Codable>: Codable {
        let v: Int
        let value: Value
    }

    static func legacy(_ value: some Codable, version: Int = 1) throws -> [UInt8] {
        Array(try JSONEncoder().encode(Versioned(v: version, value: value)))
    }

    func expectCorrupt(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: CredentialError.corruptRecord("a token record does not decode"), sourceLocation: sourceLocation)
        {
            try TokenRecordCoding.decodeToken(bytes)
        }
        #expect(throws: CredentialError.corruptRecord("a token record does not decode"), sourceLocation: sourceLocation)
        {
            try TokenRecordCoding.decodeMetadata(bytes)
        }
    }

    // MARK: Round trips

    static func token(_ name: String) -> Token {
        switch name {
        case "full": fullToken
        case "minimal": minimalToken
        default: TestTokens.token()
        }
    }

    @Test(arguments: ["full", "minimal", "from a response"])
    func everyTokenFieldRoundTrips(name: String) throws {
        let token = Self.token(name)
        let bytes = TokenRecordCoding.encode(token)
        #expect(bytes.first == TokenRecordCoding.formatMarker)
        #expect(bytes.first != UInt8(ascii: "{"))
        let decoded = try TokenRecordCoding.decodeToken(bytes)
        #expect(decoded == token)
        #expect(decoded.id == token.id)
        #expect(decoded.tokenType == token.tokenType)
        #expect(decoded.accessToken == token.accessToken)
        #expect(decoded.refreshToken == token.refreshToken)
        #expect(decoded.idToken?.rawValue == token.idToken?.rawValue)
        #expect(decoded.idToken?.claims == token.idToken?.claims)
        #expect(decoded.idToken?.header == token.idToken?.header)
        #expect(decoded.deviceSecret == token.deviceSecret)
        #expect(decoded.scope == token.scope)
        #expect(
            decoded.issuedAt.timeIntervalSinceReferenceDate.bitPattern
                == token.issuedAt.timeIntervalSinceReferenceDate.bitPattern)
        #expect(decoded.expiresIn.bitPattern == token.expiresIn.bitPattern)
        #expect(decoded.context == token.context)
        #expect(decoded.context.clientSecret == token.context.clientSecret)
        #expect(decoded.context.scopes == token.context.scopes)
        #expect(TokenRecordCoding.encode(decoded) == bytes, "the layout is canonical")
    }

    @Test func anEmptyScopeListIsNotAMissingOne() throws {
        let token = Token(
            id: "t", tokenType: "Bearer", accessToken: "a", refreshToken: nil, idToken: nil, deviceSecret: nil,
            scope: [], issuedAt: Date(), expiresIn: 1, context: TestTokens.context)
        #expect(try TokenRecordCoding.decodeToken(TokenRecordCoding.encode(token)).scope == [])
    }

    @Test func metadataKeepsTheIDTokensPayloadAsItCame() throws {
        let token = Self.fullToken
        let metadata = Token.Metadata(token: token, tags: ["user": "jane", "ténant": "acme", "": "empty key"])
        let bytes = try TokenRecordCoding.encode(metadata)
        let payload = token.idToken!.rawValue.split(separator: ".")[1]
        #expect(bytes.count < 64 + payload.utf8.count + 40, "the claims are the payload part, not re-encoded JSON")
        #expect(
            bytes.firstRange(of: Array(payload.utf8)) != nil, "the ID token's payload part is stored as it came")
        let decoded = try TokenRecordCoding.decodeMetadata(bytes)
        #expect(decoded == metadata)
        #expect(decoded.id == token.id)
        #expect(decoded.tags == metadata.tags)
        #expect(decoded.claims == token.idToken!.claims)
        #expect(decoded.subject == "jane")
        #expect((decoded[.roles] as? [String]) == ["admin", "user"])
        #expect(try TokenRecordCoding.encode(decoded) == bytes, "claims read back are written back unchanged")
        #expect(decoded.hashValue == metadata.hashValue)
    }

    @Test func metadataWithClaimsGivenAsValuesRoundTrips() throws {
        let claims: [String: JSONValue] = [
            "sub": .string("bob"), "n": .number(1.5), "ok": .bool(true), "none": .null,
            "list": .array([.string("x"), .number(2)]), "obj": .object(["k": .string("v")]),
        ]
        let metadata = Token.Metadata(id: "m", tags: ["a": "1"], claims: claims)
        let decoded = try TokenRecordCoding.decodeMetadata(try TokenRecordCoding.encode(metadata))
        #expect(decoded.claims == claims)
        #expect(decoded == metadata)
        #expect(decoded.hashValue == metadata.hashValue)

        let empty = Token.Metadata(id: "e")
        let decodedEmpty = try TokenRecordCoding.decodeMetadata(try TokenRecordCoding.encode(empty))
        #expect(decodedEmpty == empty)
        #expect(decodedEmpty.claims.isEmpty)
        #expect(decodedEmpty.tags.isEmpty)
    }

    @Test func claimsGivenAsValuesThatAreNotJSONAreRefused() {
        let metadata = Token.Metadata(id: "m", claims: ["bad": .number(.nan)])
        #expect(throws: CredentialError.corruptRecord("the token's claims are not JSON")) {
            try TokenRecordCoding.encode(metadata)
        }
    }

    /// Reading metadata parses no JSON: claims bytes that are not JSON at all still read (the
    /// encoder never writes such bytes), and only reading `claims` finds out, as empty claims.
    @Test func metadataClaimsAreParsedOnlyOnAccess() throws {
        var bytes = try TokenRecordCoding.encode(Token.Metadata(id: "m", tags: ["k": "v"]))
        bytes.removeLast()  // the "no claims" byte
        let notJSON = Array("{not json at all}".utf8)
        bytes.append(2)
        withUnsafeBytes(of: UInt32(notJSON.count).littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: notJSON)
        let decoded = try TokenRecordCoding.decodeMetadata(bytes)
        #expect(decoded.tags == ["k": "v"])
        #expect(decoded.claims.isEmpty)
        #expect(try TokenRecordCoding.encode(decoded) == bytes)
    }

    @Test func lazyClaimsAreSafeToReadFromManyThreads() async throws {
        let metadata = try TokenRecordCoding.decodeMetadata(
            try TokenRecordCoding.encode(Token.Metadata(token: Self.fullToken, tags: [:])))
        let token = try TokenRecordCoding.decodeToken(TokenRecordCoding.encode(Self.fullToken))
        let subjects = await withTaskGroup(of: [String?].self) { group in
            for _ in 0..<8 { group.addTask { [metadata.subject, token.idToken?.subject] } }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(subjects == Array(repeating: "jane", count: 16))
    }

    /// The lazy parse's own base64url decoder reads what the base64url and base64 encoders write.
    @Test func storedJWTPartsDecodeAsFoundationDoes() {
        for count in 0..<64 {
            let bytes = Data((0..<count).map { _ in UInt8.random(in: 0...255) })
            let base64URL = Array(TestTokens.base64URL(bytes).utf8)
            let base64 = Array(bytes.base64EncodedString().replacingOccurrences(of: "=", with: "").utf8)
            #expect(base64URL.withUnsafeBufferPointer(LazyJSONObject.base64URLDecoded) == bytes)
            #expect(base64.withUnsafeBufferPointer(LazyJSONObject.base64URLDecoded) == bytes)
        }
        for bad in ["a", "abcde", "ab=", "ab c", "ab.c", "é"] {
            #expect(Array(bad.utf8).withUnsafeBufferPointer(LazyJSONObject.base64URLDecoded) == nil)
        }
    }

    // MARK: The legacy JSON form

    @Test(arguments: ["full", "minimal"])
    func legacyJSONRecordsStillDecode(name: String) throws {
        let token = Self.token(name)
        #expect(try TokenRecordCoding.decodeToken(Self.legacy(token)) == token)
        let metadata = Token.Metadata(token: token, tags: ["user": "jane"])
        let decoded = try TokenRecordCoding.decodeMetadata(Self.legacy(metadata))
        #expect(decoded == metadata)
        #expect(decoded.claims == metadata.claims)
    }

    /// Bytes as the JSON encoder wrote them before the binary form (kept literally, so a change to
    /// the types' `Codable` conformances cannot hide a break).
    @Test func aCommittedLegacyRecordDecodes() throws {
        let idToken = TestTokens.jwt(["sub": "fixture@example.com"])
        let tokenJSON = """
            {"v":1,"value":{"id":"legacy-1","tokenType":"Bearer","accessToken":"fixture-access-token",\
            "refreshToken":"fixture-refresh-token","idToken":"\(idToken)","scope":["openid","profile"],\
            "issuedAt":799999999.5,"expiresIn":3600,"context":{"issuer":"https:\\/\\/issuer.example.com",\
            "clientID":"test-client","scopes":["openid"]}}}
            """
        let token = try TokenRecordCoding.decodeToken(Array(tokenJSON.utf8))
        #expect(token.id == "legacy-1")
        #expect(token.accessToken == "fixture-access-token")
        #expect(token.refreshToken == "fixture-refresh-token")
        #expect(token.idToken?.subject == "fixture@example.com")
        #expect(token.deviceSecret == nil)
        #expect(token.scope == ["openid", "profile"])
        #expect(token.issuedAt == Date(timeIntervalSinceReferenceDate: 799_999_999.5))
        #expect(token.context == Token.Context(issuer: TestTokens.issuer, clientID: "test-client", scopes: ["openid"]))

        let metadataJSON = """
            {"v":1,"value":{"id":"legacy-1","tags":{"fixture":"yes"},"claims":{"sub":"fixture@example.com","n":2}}}
            """
        let metadata = try TokenRecordCoding.decodeMetadata(Array(metadataJSON.utf8))
        #expect(metadata.id == "legacy-1")
        #expect(metadata.tags == ["fixture": "yes"])
        #expect(metadata.claims == ["sub": .string("fixture@example.com"), "n": .number(2)])
        // Encoding always writes the binary form, which reads back the same.
        let rewritten = try TokenRecordCoding.encode(metadata)
        #expect(rewritten.first == TokenRecordCoding.formatMarker)
        #expect(try TokenRecordCoding.decodeMetadata(rewritten) == metadata)
        #expect(try TokenRecordCoding.decodeToken(TokenRecordCoding.encode(token)) == token)
    }

    @Test func aLegacyRecordOfAnotherVersionIsAnUnsupportedFormat() throws {
        #expect(throws: CredentialError.storage(.unsupportedFormat("token record version 2"))) {
            try TokenRecordCoding.decodeToken(Self.legacy(Self.minimalToken, version: 2))
        }
    }

    /// A record the old encoder wrote into a vault reads through `VaultTokenStorage`, and the next
    /// write of its metadata (no proof needed) is in the binary form.
    @Test func aVaultWithLegacyRecordsStillReads() throws {
        let vault = Vault.inMemory()
        let token = Self.fullToken
        let metadata = Token.Metadata(token: token, tags: ["user": "jane"])
        _ = try vault.insertTokenRecord(
            id: token.id, metadata: Self.legacy(metadata), terms: metadata.indexTerms, secret: Self.legacy(token),
            policy: .default,
            defaultIfNone: true)
        let storage = try VaultTokenStorage(vault: vault)
        #expect(try storage.token(id: token.id, prompt: nil, authenticationContext: nil) == token)
        let stored = try #require(try storage.storedMetadata(id: token.id))
        #expect(stored.metadata == metadata)
        #expect(try storage.allMetadata().map(\.subject) == ["jane"])

        let retagged = Token.Metadata(id: token.id, tags: ["user": "jane", "new": "tag"], claims: metadata.claims)
        _ = try storage.setMetadata(retagged, expectedVersion: stored.version)
        let raw = try #require(try vault.tokenRecordMetadata(id: token.id))
        #expect(raw.metadata.first == TokenRecordCoding.formatMarker)
        #expect(try storage.metadata(id: token.id) == retagged)
        #expect(try storage.token(id: token.id, prompt: nil, authenticationContext: nil) == token)
    }

    // MARK: Malformed bytes

    @Test func everyTruncationIsACorruptRecord() throws {
        let token = TokenRecordCoding.encode(Self.fullToken)
        for count in 0..<token.count {
            #expect(throws: CredentialError.corruptRecord("a token record does not decode")) {
                try TokenRecordCoding.decodeToken(Array(token.prefix(count)))
            }
        }
        let metadata = try TokenRecordCoding.encode(Token.Metadata(token: Self.fullToken, tags: ["a": "b"]))
        for count in 0..<metadata.count {
            #expect(throws: CredentialError.corruptRecord("a token record does not decode")) {
                try TokenRecordCoding.decodeMetadata(Array(metadata.prefix(count)))
            }
        }
    }

    @Test func trailingBytesAreACorruptRecord() throws {
        expectCorrupt(TokenRecordCoding.encode(Self.minimalToken) + [0])
        expectCorrupt(try TokenRecordCoding.encode(Token.Metadata(id: "m")) + [0])
    }

    @Test func malformedFieldsAreACorruptRecord() throws {
        let token = TokenRecordCoding.encode(Self.minimalToken)
        var unknownFlag = token
        unknownFlag[2] |= 0x80
        expectCorrupt(unknownFlag)
        var notUTF8 = token
        notUTF8[notUTF8.firstIndex(of: UInt8(ascii: "a"))!] = 0xFF  // in "Bearer": not UTF-8
        expectCorrupt(notUTF8)
        var nonFinite = TokenRecordCoding.encode(Self.minimalToken)
        let issuedAt = 3 + 4 + 4 + "Bearer".utf8.count + 4 + 1
        nonFinite.replaceSubrange(issuedAt..<issuedAt + 8, with: [0, 0, 0, 0, 0, 0, 0xF0, 0x7F])  // +infinity
        expectCorrupt(nonFinite)
        var hugeCount = TokenRecordCoding.encode(Self.minimalToken)
        hugeCount.replaceSubrange(3..<7, with: [0xFF, 0xFF, 0xFF, 0xFF])
        expectCorrupt(hugeCount)

        // A metadata record read as a token, and the other way round.
        expectCorrupt([TokenRecordCoding.formatMarker])
        #expect(throws: CredentialError.corruptRecord("a token record does not decode")) {
            try TokenRecordCoding.decodeToken(try TokenRecordCoding.encode(Token.Metadata(id: "m")))
        }
        #expect(throws: CredentialError.corruptRecord("a token record does not decode")) {
            try TokenRecordCoding.decodeMetadata(TokenRecordCoding.encode(Self.minimalToken))
        }

        // Tags out of order or twice.
        let metadata = try TokenRecordCoding.encode(Token.Metadata(id: "", tags: ["a": "1", "b": "2"]))
        var swapped = metadata
        let first = swapped.firstIndex(of: UInt8(ascii: "a"))!
        let second = swapped.firstIndex(of: UInt8(ascii: "b"))!
        swapped[first] = UInt8(ascii: "b")
        swapped[second] = UInt8(ascii: "a")
        expectCorrupt(swapped)
        var twice = metadata
        twice[second] = UInt8(ascii: "a")
        expectCorrupt(twice)
        // An unknown claims encoding, claims that are not base64url.
        var unknownClaims = metadata
        unknownClaims[unknownClaims.count - 1] = 3
        expectCorrupt(unknownClaims)
        var notBase64 = try TokenRecordCoding.encode(Token.Metadata(token: Self.fullToken, tags: [:]))
        notBase64[notBase64.count - 1] = UInt8(ascii: "=")
        expectCorrupt(notBase64)

        expectCorrupt([])
        expectCorrupt(Array("not a record".utf8))
        expectCorrupt(Array("{\"v\":1}".utf8))
        expectCorrupt(Array("{".utf8))
    }

    @Test func aLaterFormatIsAnUnsupportedFormat() throws {
        var token = TokenRecordCoding.encode(Self.minimalToken)
        token[0] = 0x84
        #expect(throws: CredentialError.storage(.unsupportedFormat("token record format 0x84"))) {
            try TokenRecordCoding.decodeToken(token)
        }
        #expect(throws: CredentialError.storage(.unsupportedFormat("token record format 0xFF"))) {
            try TokenRecordCoding.decodeMetadata([0xFF, 1, 2, 3])
        }
    }

    @Test func errorsNameNoSecret() throws {
        let bytes = TokenRecordCoding.encode(Self.fullToken)
        for broken in [Array(bytes.dropLast()), bytes + [1], Array(bytes.prefix(40))] {
            do {
                _ = try TokenRecordCoding.decodeToken(broken)
                Issue.record("a broken record decoded")
            } catch {
                let text = "\(error) \(String(reflecting: error)) \(error.localizedDescription)"
                for secret in ["access-token-secret", "refresh-token-secret", "device-secret", "client-secret"] {
                    #expect(!text.contains(secret))
                }
            }
        }
    }
}

/// Token records with a DPoP key: format 2, which a reader of format 1 refuses as a later format.
@Suite struct DPoPTokenRecordTests {
    static func boundToken(key: DPoPKey) -> Token {
        TokenRecordCodingTests.fullToken.bound(to: key)
    }

    @Test func aTokenWithAKeyIsFormat2AndItsKeyRoundTrips() throws {
        let key = DPoPKey()
        let bytes = TokenRecordCoding.encode(Self.boundToken(key: key))
        #expect(bytes.first == TokenRecordCoding.dpopFormatMarker)
        let decoded = try TokenRecordCoding.decodeToken(bytes)
        #expect(decoded == Self.boundToken(key: key))
        #expect(decoded.dpopKey == key)
        #expect(decoded.dpopKey?.thumbprint == key.thumbprint)
        #expect(TokenRecordCoding.encode(decoded) == bytes)
    }

    @Test func aTokenWithoutAKeyIsStillFormat1ByteForByte() throws {
        let bytes = TokenRecordCoding.encode(TokenRecordCodingTests.fullToken)
        #expect(bytes.first == TokenRecordCoding.formatMarker)
        let withKey = TokenRecordCoding.encode(Self.boundToken(key: DPoPKey()))
        // Format 2 is format 1 with the flag set and the key after the last field.
        #expect(withKey[0] == 0x82 && withKey[2] == bytes[2] | 32)
        #expect(Array(withKey[3..<bytes.count]) == Array(bytes[3...]))
        #expect(try TokenRecordCoding.decodeToken(bytes).dpopKey == nil)
    }

    /// What a reader of format 1 alone does with a record that has a key: its marker check refuses
    /// every byte >= 0x80 but 0x81 as a later format, so it never reads the token without its key.
    @Test func aFormat1ReaderRefusesAKeyRecordAsALaterFormat() throws {
        let withKey = TokenRecordCoding.encode(Self.boundToken(key: DPoPKey()))
        var later = withKey
        later[0] = 0x84
        #expect(throws: CredentialError.storage(.unsupportedFormat("token record format 0x84"))) {
            try TokenRecordCoding.decodeToken(later)
        }
        #expect(withKey[0] != TokenRecordCoding.formatMarker && withKey[0] >= 0x80)
    }

    @Test func aKeyFlagAndMarkerThatDisagreeAreACorruptRecord() throws {
        let corrupt = CredentialError.corruptRecord("a token record does not decode")
        var format1WithFlag = TokenRecordCoding.encode(Self.boundToken(key: DPoPKey()))
        format1WithFlag[0] = TokenRecordCoding.formatMarker
        #expect(throws: corrupt) { try TokenRecordCoding.decodeToken(format1WithFlag) }
        var format2WithoutFlag = TokenRecordCoding.encode(TokenRecordCodingTests.fullToken)
        format2WithoutFlag[0] = TokenRecordCoding.dpopFormatMarker
        #expect(throws: corrupt) { try TokenRecordCoding.decodeToken(format2WithoutFlag) }
        // A seed of the wrong length, and every truncation.
        let bytes = TokenRecordCoding.encode(Self.boundToken(key: DPoPKey()))
        var shortSeed = Array(bytes.dropLast())
        shortSeed[shortSeed.count - 35] = 31  // the low byte of the seed's length: 31 bytes follow
        #expect(throws: corrupt) { try TokenRecordCoding.decodeToken(shortSeed) }
        for length in 0..<bytes.count {
            #expect(throws: corrupt) { try TokenRecordCoding.decodeToken(Array(bytes.prefix(length))) }
        }
    }

    /// Tags go in the order of their keys' UTF-8 bytes, whatever the order `String` gives them
    /// (which compares canonically equivalent text, not bytes) or the dictionary holds them in: a
    /// decomposed "é" sorts before "f" by bytes and after it as a `String`.
    @Test func tagsAreWrittenInTheirKeysByteOrder() throws {
        let keys = [
            "f", "e\u{301}", "", "tag-name-longer-than-a-small-string", "tag-name-longer-than-a-small-strinG",
            "\u{1F511}", "Z",
        ]
        var tags: [String: String] = [:]
        for (index, key) in keys.enumerated() { tags[key] = "value \(index)" }
        let bytes = try TokenRecordCoding.encode(Token.Metadata(id: "ordered", tags: tags))
        var reordered: [String: String] = [:]
        for key in keys.reversed() { reordered[key] = tags[key] }
        #expect(try TokenRecordCoding.encode(Token.Metadata(id: "ordered", tags: reordered)) == bytes)
        #expect(try TokenRecordCoding.decodeMetadata(bytes).tags == tags)

        let byteOrder = keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        #expect(byteOrder != keys.sorted())
        // The values are unique: where each is written tells where its key was.
        let written = byteOrder.map { bytes.firstRange(of: Array(tags[$0]!.utf8))?.lowerBound ?? -1 }
        #expect(!written.contains(-1))
        #expect(written == written.sorted())
    }
}
