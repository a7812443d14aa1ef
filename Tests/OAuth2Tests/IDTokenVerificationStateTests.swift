import Foundation
import OAuth2
import TestSupport
import Testing

/// Whether a token's ID token was verified: set only by validation, never by `Codable` (whatever
/// the JSON says), `false` for raw responses, and carried through a refresh only with the ID token
/// it belongs to. (Token records in a vault keep it: `VerifiedTokenRecordTests`.)
@Suite struct IDTokenVerificationStateTests {
    static func tokens() throws -> (raw: Token, verified: Token) {
        try VerifiedTestTokens.tokens()
    }

    @Test func aRawResponseIsUnverifiedAndValidationMarksIt() throws {
        let (raw, verified) = try Self.tokens()
        #expect(!raw.idTokenVerified)
        #expect(verified.idTokenVerified)
        #expect(!TestTokens.token().idTokenVerified)
        #expect("\(verified.idToken!)".contains("verified"))
        #expect(!"\(raw.idToken!)".contains(" verified"))
        // Equality is about the token strings, not about how far they were checked.
        #expect(raw == verified)
    }

    /// `Codable` data is text anyone can write: it never carries the mark, and a key claiming it
    /// (as earlier versions wrote) is ignored, so hand-written JSON cannot pass off claims as checked.
    @Test func codableNeverYieldsAVerifiedIDToken() throws {
        let (raw, verified) = try Self.tokens()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let encoded = try encoder.encode(verified)
        var object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(object["idTokenVerified"] == nil)
        let decoded = try JSONDecoder().decode(Token.self, from: encoded)
        #expect(!decoded.idTokenVerified)
        #expect(decoded == verified)  // the same strings: the round trip loses only the mark
        #expect(try encoder.encode(decoded) == encoded)

        object["idTokenVerified"] = true
        let claimed = try JSONDecoder().decode(Token.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(!claimed.idTokenVerified)
        #expect(claimed.idToken?.isVerified == false)
        #expect(claimed == raw)
        // A JWT on its own encodes as its text, and comes back unverified.
        let jwt = try JSONDecoder().decode(JWT.self, from: JSONEncoder().encode(verified.idToken!))
        #expect(!jwt.isVerified)
    }

    @Test func aRefreshKeepsTheStateOnlyWithTheIDTokenItBelongsTo() throws {
        let (raw, verified) = try Self.tokens()
        let withoutIDToken = try Token(
            response: Data(#"{"access_token":"at2","token_type":"Bearer","expires_in":60}"#.utf8),
            context: TestTokens.context)
        #expect(verified.merged(with: withoutIDToken).idTokenVerified)
        #expect(!raw.merged(with: withoutIDToken).idTokenVerified)
        // A new, unverified ID token replaces the verified one, and its state with it.
        #expect(!verified.merged(with: raw).idTokenVerified)
        #expect(raw.merged(with: verified).idTokenVerified)
    }
}
