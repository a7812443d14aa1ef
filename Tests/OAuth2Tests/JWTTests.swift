import Foundation
import OAuth2
import TestSupport
import Testing

@Suite struct JWTTests {
    @Test func readsClaimsWithAndWithoutPaddingNeeds() throws {
        // Payload lengths that need 0, 1 and 2 padding characters in standard base64.
        for name in ["a", "ab", "abc"] {
            let jwt = try JWT(TestTokens.jwt(["sub": name]))
            #expect(jwt.subject == name)
            #expect(!jwt.rawValue.contains("="))
        }
    }

    @Test func numericDatesAndAudienceShapes() throws {
        let jwt = try JWT(TestTokens.jwt(["iat": 1_700_000_000, "exp": 1_700_000_600.5, "aud": "single"]))
        #expect(jwt.issuedAt == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(jwt.expirationTime == Date(timeIntervalSince1970: 1_700_000_600.5))
        #expect(jwt.audience == ["single"])
        #expect(try JWT(TestTokens.jwt(["aud": ["a", "b"]])).audience == ["a", "b"])
        #expect(try JWT(TestTokens.jwt(["exp": "not a number"])).expirationTime == nil)
    }

    @Test func customClaimsThroughBothSubscripts() throws {
        let jwt = try JWT(
            TestTokens.jwt([
                "roles": ["admin", "user"], "department": "finance", "level": 3, "email_verified": true,
                "address": ["country": "NL"],
            ]))
        #expect((jwt[.roles] as? [String])?.contains("admin") == true)
        #expect(jwt["department"] as? String == "finance")
        let level: Int? = jwt["level"]
        #expect(level == 3)
        let verified: Bool? = jwt[.emailVerified]
        #expect(verified == true)
        #expect((jwt["address"] as? [String: Any])?["country"] as? String == "NL")
        #expect(jwt["missing"] == nil)
        #expect(jwt.header["alg"] == .string("RS256"))
    }

    @Test func malformedTokensAreClearErrors() {
        #expect(throws: OAuth2Error.invalidToken("a JWT has three dot-separated parts, this has 2")) { try JWT("a.b") }
        #expect(throws: OAuth2Error.invalidToken("a JWT has three dot-separated parts, this has 1")) { try JWT("") }
        #expect(throws: OAuth2Error.invalidToken("the JWT header is not base64url")) { try JWT("!!!.e30.sig") }
        #expect(throws: OAuth2Error.invalidToken("the JWT payload is not a JSON object")) {
            try JWT("e30.\(TestTokens.base64URL(Data("[1]".utf8))).sig")
        }
        #expect(throws: OAuth2Error.invalidToken("the JWT payload is not base64url")) { try JWT("e30.a.sig") }
        #expect(throws: OAuth2Error.invalidToken("the JWT payload is not base64url")) { try JWT("e30.e30=.sig") }
    }

    @Test func codableAsItsCompactForm() throws {
        let jwt = try JWT(TestTokens.jwt(["sub": "x"]))
        let encoded = try JSONEncoder().encode(jwt)
        #expect(String(decoding: encoded, as: UTF8.self) == "\"\(jwt.rawValue)\"")
        #expect(try JSONDecoder().decode(JWT.self, from: encoded) == jwt)
    }
}
