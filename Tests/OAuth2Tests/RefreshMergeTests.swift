import Foundation
import OAuth2
import TestSupport
import Testing

@Suite struct RefreshMergeTests {
    let original = Token(
        id: "local-id", tokenType: "Bearer", accessToken: "old-access", refreshToken: "old-refresh",
        idToken: try! JWT(TestTokens.jwt(["sub": "old"])), deviceSecret: "device", scope: ["openid", "email"],
        issuedAt: Date(timeIntervalSince1970: 1000), expiresIn: 60, context: TestTokens.context)

    @Test func newValuesWinAndMissingOnesAreKept() throws {
        let response = #"{"access_token":"new-access","token_type":"Bearer","expires_in":120}"#
        let fresh = try Token(
            response: Data(response.utf8), context: TestTokens.context, issuedAt: Date(timeIntervalSince1970: 2000))
        let merged = original.merged(with: fresh)
        #expect(merged.id == "local-id")
        #expect(merged.accessToken == "new-access")
        #expect(merged.refreshToken == "old-refresh")
        #expect(merged.idToken?.subject == "old")
        #expect(merged.deviceSecret == "device")
        #expect(merged.scope == ["openid", "email"])
        #expect(merged.issuedAt == Date(timeIntervalSince1970: 2000))
        #expect(merged.expiresAt == Date(timeIntervalSince1970: 2120))
        #expect(merged.context == original.context)
    }

    @Test func rotatedValuesReplaceTheOldOnes() throws {
        let rotated = TestTokens.jwt(["sub": "new"])
        let response =
            #"{"access_token":"a2","token_type":"DPoP","expires_in":5,"refresh_token":"r2","id_token":"\#(rotated)","scope":"openid"}"#
        let merged = original.merged(with: try Token(response: Data(response.utf8), context: TestTokens.context))
        #expect(merged.refreshToken == "r2")
        #expect(merged.idToken?.subject == "new")
        #expect(merged.tokenType == "DPoP")
        #expect(merged.scope == ["openid"])
        #expect(merged.id == "local-id")
    }
}
