import Foundation
import OAuth2
import TestSupport
import Testing

/// Whether a token's ID token was verified: set only by validation, kept by `Codable`, `false` for
/// data from before it existed and for raw responses, and carried through a refresh only with the
/// ID token it belongs to.
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

    @Test func codableKeepsTheStateAndOldDataDecodesUnverified() throws {
        let (raw, verified) = try Self.tokens()
        let encoded = try JSONEncoder().encode(verified)
        #expect(try JSONDecoder().decode(Token.self, from: encoded).idTokenVerified)
        #expect(try !JSONDecoder().decode(Token.self, from: JSONEncoder().encode(raw)).idTokenVerified)
        // What an earlier version wrote has no such key.
        var object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(object["idTokenVerified"] as? Bool == true)
        object["idTokenVerified"] = nil
        let old = try JSONDecoder().decode(Token.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(!old.idTokenVerified)
        #expect(old == raw)
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
