import Foundation
import OAuth2
import TestSupport
import Testing

@Suite struct TokenTests {
    let context = TestTokens.context
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func decode(_ json: String) throws -> Token {
        try Token(response: Data(json.utf8), context: context, issuedAt: now)
    }

    @Test func decodesAFullTokenResponse() throws {
        let token = try Token(response: TestTokens.response(expiresIn: 120), context: context, issuedAt: now)
        #expect(token.tokenType == "Bearer")
        #expect(token.accessToken.hasPrefix("at-"))
        #expect(token.refreshToken?.hasPrefix("rt-") == true)
        #expect(token.scope == ["openid", "profile"])
        #expect(token.expiresIn == 120)
        #expect(token.expiresAt == now.addingTimeInterval(120))
        #expect(token.idToken?.subject == "jane.doe@example.com")
        #expect(token.context == context)
        #expect(!token.id.isEmpty)
        #expect(token.id != (try Token(response: TestTokens.response(), context: context)).id)
    }

    @Test func expiresInMayBeAStringOrAbsent() throws {
        #expect(try decode(#"{"access_token":"a","token_type":"Bearer","expires_in":"60"}"#).expiresIn == 60)
        #expect(try decode(#"{"access_token":"a","token_type":"Bearer"}"#).expiresIn == 0)
        let jwtAccess = TestTokens.jwt(["exp": 1_800_000_300])
        #expect(try decode(#"{"access_token":"\#(jwtAccess)","token_type":"Bearer"}"#).expiresIn == 300)
        #expect(throws: OAuth2Error.invalidResponse("expires_in is not a number")) {
            try decode(#"{"access_token":"a","token_type":"Bearer","expires_in":"soon"}"#)
        }
    }

    /// Caught by FuzzTokenResponse's finite-lifetime check: a string `expires_in` of "nan", "inf" or
    /// "1e400" gave a lifetime that never expires and a token that could not be encoded for storage.
    @Test func expiresInMustBeAFiniteNumber() {
        for text in ["nan", "NaN", "inf", "-infinity", "1e400"] {
            #expect(throws: OAuth2Error.invalidResponse("expires_in is not a number")) {
                try decode(#"{"access_token":"a","token_type":"Bearer","expires_in":"\#(text)"}"#)
            }
        }
    }

    @Test func errorBodiesAndMalformedResponsesAreTypedErrors() {
        #expect(throws: OAuth2Error.server(error: "invalid_grant", description: "expired", statusCode: 200)) {
            try decode(#"{"error":"invalid_grant","error_description":"expired"}"#)
        }
        #expect(throws: OAuth2Error.invalidResponse("the token response is not a JSON object")) {
            try decode("<html>502 Bad Gateway</html>")
        }
        #expect(throws: OAuth2Error.invalidResponse("the token response is not a JSON object")) { try decode("[1,2]") }
        #expect(throws: OAuth2Error.invalidResponse("the token response has no access_token")) {
            try decode(#"{"token_type":"Bearer"}"#)
        }
        #expect(throws: OAuth2Error.invalidResponse("the token response has no token_type")) {
            try decode(#"{"access_token":"a"}"#)
        }
        #expect(throws: OAuth2Error.self) {
            try decode(#"{"access_token":"a","token_type":"Bearer","id_token":"x.y"}"#)
        }
    }

    /// `token_type` and `access_token` become `Authorization: <type> <token>`: a line break or any
    /// control character from the server would let it add headers to every request the app
    /// authorizes, so such a response is refused when it is decoded.
    @Test func tokenTypeMustBeBearerOrDPoP() {
        let refused = [
            "Bearer\r\nX-Injected: yes", "Bearer\nX-Injected: yes", "Bearer x", "Bearer ", " Bearer", "Bearer\u{0}",
            "Bearer\t", "mac", "example", "N_A", "", "Bearér",
        ]
        for tokenType in refused {
            let body = try! JSONSerialization.data(withJSONObject: ["access_token": "a", "token_type": tokenType])
            #expect(throws: OAuth2Error.invalidResponse("the token_type is not Bearer or DPoP")) {
                try Token(response: body, context: context, issuedAt: now)
            }
        }
    }

    @Test func tokenTypeIsCaseInsensitiveAndKeptAsRegistered() throws {
        for (sent, kept) in [("bearer", "Bearer"), ("BEARER", "Bearer"), ("Bearer", "Bearer"), ("dpop", "DPoP")] {
            #expect(try decode(#"{"access_token":"a","token_type":"\#(sent)"}"#).tokenType == kept)
        }
    }

    @Test func accessTokenMustBePrintableASCII() {
        for accessToken in ["a\r\nX-Injected: yes", "a\nb", "a\u{0}", "a\tb", "a\u{7F}", "café"] {
            let body = try! JSONSerialization.data(withJSONObject: [
                "access_token": accessToken, "token_type": "Bearer",
            ])
            #expect(throws: OAuth2Error.invalidResponse("the access_token has characters outside printable ASCII")) {
                try Token(response: body, context: context, issuedAt: now)
            }
        }
        // RFC 6749 A.12 allows any visible ASCII, space included.
        #expect(throws: Never.self) { try decode(#"{"access_token":"a b~!+/=","token_type":"Bearer"}"#) }
    }

    @Test func descriptionsNeverShowATokenOrSecret() throws {
        let secretContext = Token.Context(issuer: TestTokens.issuer, clientID: "c", clientSecret: "client-secret-value")
        let token = try Token(response: TestTokens.response(), context: secretContext)
        let texts = [
            token.description, "\(token)", String(reflecting: token), token.context.description,
            token.idToken!.description, Token.Metadata(token: token, tags: ["displayName": "Jane"]).description,
        ]
        for text in texts {
            #expect(!text.contains(token.accessToken))
            #expect(!text.contains(token.refreshToken!))
            #expect(!text.contains(token.idToken!.rawValue))
            #expect(!text.contains("client-secret-value"))
            #expect(!text.contains("Jane"))
        }
        #expect(token.description.contains("refreshToken"))
    }

    @Test func codableRoundTripKeepsEverything() throws {
        let token = try Token(response: TestTokens.response(), context: context, issuedAt: now)
        let decoded = try JSONDecoder().decode(Token.self, from: JSONEncoder().encode(token))
        #expect(decoded == token)
    }
}
