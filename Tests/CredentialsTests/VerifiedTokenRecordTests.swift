import Credentials
import Foundation
import TestSupport
import Testing
import TokenVault
import VaultCore

/// Token records of a verified ID token: format 3, which keeps the mark on both halves, refused
/// by older readers as a later format; and the mark read back from a real vault, where lookups
/// can require it.
@Suite struct VerifiedTokenRecordTests {
    static let corrupt = CredentialError.corruptRecord("a token record does not decode")

    static func tokens() throws -> (verified: Token, raw: Token) {
        let (raw, verified) = try VerifiedTestTokens.tokens()
        return (verified, raw)
    }

    // MARK: Encoding

    @Test func aVerifiedTokenIsFormat3AndKeepsItsMark() throws {
        let (verified, raw) = try Self.tokens()
        let bytes = TokenRecordCoding.encode(verified)
        #expect(bytes.first == TokenRecordCoding.verifiedFormatMarker)
        let decoded = try TokenRecordCoding.decodeToken(bytes)
        #expect(decoded.idTokenVerified)
        #expect(decoded == verified)
        #expect(TokenRecordCoding.encode(decoded) == bytes)
        // The unverified twin is format 1, and reads back unverified.
        let rawBytes = TokenRecordCoding.encode(raw)
        #expect(rawBytes.first == TokenRecordCoding.formatMarker)
        #expect(try !TokenRecordCoding.decodeToken(rawBytes).idTokenVerified)
    }

    @Test func aVerifiedTokenWithADPoPKeyKeepsBoth() throws {
        let key = DPoPKey()
        let bound = try Self.tokens().verified.bound(to: key)
        let bytes = TokenRecordCoding.encode(bound)
        #expect(bytes.first == TokenRecordCoding.verifiedFormatMarker)
        let decoded = try TokenRecordCoding.decodeToken(bytes)
        #expect(decoded.idTokenVerified)
        #expect(decoded.dpopKey == key)
        #expect(TokenRecordCoding.encode(decoded) == bytes)
    }

    @Test func metadataOfAVerifiedTokenIsFormat3AndKeepsItsMark() throws {
        let (verified, raw) = try Self.tokens()
        let metadata = Token.Metadata(token: verified, tags: ["team": "a"])
        #expect(metadata.claimsVerified)
        let bytes = try TokenRecordCoding.encode(metadata)
        #expect(bytes.first == TokenRecordCoding.verifiedFormatMarker)
        let decoded = try TokenRecordCoding.decodeMetadata(bytes)
        #expect(decoded.claimsVerified)
        #expect(decoded == metadata)
        #expect(decoded.subject == "user-1")
        #expect(try TokenRecordCoding.encode(decoded) == bytes)

        let unverified = Token.Metadata(token: raw, tags: ["team": "a"])
        let rawBytes = try TokenRecordCoding.encode(unverified)
        #expect(rawBytes.first == TokenRecordCoding.formatMarker)
        #expect(Array(rawBytes.dropFirst()) == Array(bytes.dropFirst()))
        #expect(try !TokenRecordCoding.decodeMetadata(rawBytes).claimsVerified)
        // Same claims, one checked and one not: not the same metadata.
        #expect(decoded != (try TokenRecordCoding.decodeMetadata(rawBytes)))
        // Claims given as values are never verified.
        #expect(!Token.Metadata(id: "x", claims: ["sub": .string("user-1")]).claimsVerified)
    }

    /// The legacy JSON record form predates the mark, so no record of it the library wrote has
    /// one: a JSON record that claims it (a key hand-written into a token or its metadata) reads
    /// back unverified, through the reader and through the format upgrade alike.
    @Test func aLegacyJSONRecordNeverReadsBackVerified() throws {
        let verified = try Self.tokens().verified
        func legacy(_ value: some Encodable, adding key: String) throws -> [UInt8] {
            var object = try #require(
                try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
            object[key] = true
            return Array(try JSONSerialization.data(withJSONObject: ["v": 1, "value": object]))
        }
        let token = try TokenRecordCoding.decodeToken(try legacy(verified, adding: "idTokenVerified"))
        #expect(token == verified)
        #expect(!token.idTokenVerified)
        // Written again, it is format 1: nothing upgrades it to the verified format.
        #expect(TokenRecordCoding.encode(token).first == TokenRecordCoding.formatMarker)

        let metadataBytes = try legacy(Token.Metadata(token: verified, tags: ["team": "a"]), adding: "claimsVerified")
        let metadata = try TokenRecordCoding.decodeMetadata(metadataBytes)
        #expect(metadata.subject == "user-1")
        #expect(!metadata.claimsVerified)
        let upgraded = try TokenRecordCoding.upgradedMetadata(metadataBytes).metadata
        #expect(upgraded.first == TokenRecordCoding.formatMarker)
        #expect(try !TokenRecordCoding.decodeMetadata(upgraded).claimsVerified)
    }

    /// Only the marker and flag set the mark: a format 1 record cannot claim it, a format 3 one
    /// cannot be without it, and format 3 metadata must hold an ID token's payload.
    @Test func aMarkThatDisagreesWithItsRecordIsACorruptRecord() throws {
        let (verified, raw) = try Self.tokens()
        var format1WithFlag = TokenRecordCoding.encode(verified)
        format1WithFlag[0] = TokenRecordCoding.formatMarker
        #expect(throws: Self.corrupt) { try TokenRecordCoding.decodeToken(format1WithFlag) }
        var format3WithoutFlag = TokenRecordCoding.encode(raw)
        format3WithoutFlag[0] = TokenRecordCoding.verifiedFormatMarker
        #expect(throws: Self.corrupt) { try TokenRecordCoding.decodeToken(format3WithoutFlag) }
        var flagWithoutIDToken = TokenRecordCoding.encode(TokenRecordCodingTests.minimalToken)
        flagWithoutIDToken[0] = TokenRecordCoding.verifiedFormatMarker
        flagWithoutIDToken[2] |= 64
        #expect(throws: Self.corrupt) { try TokenRecordCoding.decodeToken(flagWithoutIDToken) }

        var jsonClaims = try TokenRecordCoding.encode(Token.Metadata(id: "x", claims: ["sub": .string("user-1")]))
        jsonClaims[0] = TokenRecordCoding.verifiedFormatMarker
        #expect(throws: Self.corrupt) { try TokenRecordCoding.decodeMetadata(jsonClaims) }
        var noClaims = try TokenRecordCoding.encode(Token.Metadata(id: "x"))
        noClaims[0] = TokenRecordCoding.verifiedFormatMarker
        #expect(throws: Self.corrupt) { try TokenRecordCoding.decodeMetadata(noClaims) }
        // Format 2 is a token half's alone.
        var format2Metadata = try TokenRecordCoding.encode(Token.Metadata(token: raw, tags: [:]))
        format2Metadata[0] = TokenRecordCoding.dpopFormatMarker
        #expect(throws: Self.corrupt) { try TokenRecordCoding.decodeMetadata(format2Metadata) }
        let bytes = TokenRecordCoding.encode(verified)
        for length in 0..<bytes.count {
            #expect(throws: Self.corrupt) { try TokenRecordCoding.decodeToken(Array(bytes.prefix(length))) }
        }
    }

    /// A reader that knows formats 1 and 2 alone refuses every byte >= 0x80 past them as a later
    /// format, so it never reads a verified token as an unverified one and writes it back so.
    @Test func theMarkerIsOneAnOlderReaderRefusesAsALaterFormat() throws {
        let bytes = TokenRecordCoding.encode(try Self.tokens().verified)
        #expect(bytes[0] > TokenRecordCoding.dpopFormatMarker)
        #expect(bytes[0] >= 0x80)
        var later = bytes
        later[0] = TokenRecordCoding.verifiedFormatMarker + 1
        #expect(throws: CredentialError.storage(.unsupportedFormat("token record format 0x84"))) {
            try TokenRecordCoding.decodeToken(later)
        }
    }
}

extension CredentialTests {
    /// The verified mark in a real vault file, reopened: lookups can require it. Part of the
    /// serialized suite: it uses the process-wide `Credential` state.
    @Suite struct VerifiedClaimsInAVault {
        @Test func theMarkSurvivesAReopenedVaultAndLookupsCanRequireIt() throws {
            let directory = TemporaryDirectory()
            let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
            try Credential.use(vault)
            let verified = try VerifiedTestTokens.tokens(accessToken: "at-verified").verified
            let raw = try VerifiedTestTokens.tokens(accessToken: "at-raw").raw
            try Credential.store(verified, tags: ["team": "a"])
            try Credential.store(raw, tags: ["team": "a"])
            vault.close()

            let reopened = try Vault.open(at: url, unlock: .keyFile(keyFile))
            try Credential.use(reopened)
            let read = try #require(try Credential.with(id: verified.id))
            #expect(read.token.idTokenVerified)
            #expect(try #require(try Credential.with(id: raw.id)).token.idTokenVerified == false)
            #expect(try Credential.find(where: \.claimsVerified).map(\.id) == [verified.id])
            // The indexed claim finds both; the verified form only the checked one.
            #expect(Set(try Credential.find(claim: "sub", equals: "user-1").map(\.id)) == [verified.id, raw.id])
            #expect(try Credential.find(verifiedClaim: "sub", equals: "user-1").map(\.id) == [verified.id])
            #expect(
                try Credential.find(verifiedClaim: "email", equals: "user-1@example.com").map(\.id) == [verified.id])
            #expect(try Credential.find(verifiedClaim: "sub", equals: "someone-else").isEmpty)
            // New tags keep the claims as they were kept, mark included.
            try read.setTags(["team": "b"])
            #expect(try Credential.find(verifiedClaim: "sub", equals: "user-1").map(\.tags) == [["team": "b"]])
            reopened.close()
        }
    }
}
