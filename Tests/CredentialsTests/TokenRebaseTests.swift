import Foundation
import TestSupport
import Testing
import TokenVault

/// The merge a refresh that lost a compare-and-swap applies onto the token stored meanwhile.
@Suite struct TokenRebaseTests {
    let base = Token(
        id: "id", tokenType: "Bearer", accessToken: "a1", refreshToken: "r1",
        idToken: try! JWT(TestTokens.jwt(["sub": "1"])),
        deviceSecret: "d1", scope: ["openid"], issuedAt: Date(timeIntervalSince1970: 1000), expiresIn: 60,
        context: TestTokens.context)

    func token(access: String, refresh: String?, subject: String, device: String?, issued: TimeInterval) -> Token {
        Token(
            id: "id", tokenType: "Bearer", accessToken: access, refreshToken: refresh,
            idToken: try! JWT(TestTokens.jwt(["sub": subject])), deviceSecret: device, scope: ["openid"],
            issuedAt: Date(timeIntervalSince1970: issued), expiresIn: 60, context: TestTokens.context)
    }

    @Test func whatTheRefreshChangedWinsAndTheRestStaysAsStored() {
        // The refresh gave a new access token and ID token, and echoed the refresh token.
        let mine = token(access: "a3", refresh: "r1", subject: "3", device: "d1", issued: 3000)
        // Meanwhile another writer rotated the refresh token and dropped the device secret.
        let stored = token(access: "a2", refresh: "r2", subject: "1", device: nil, issued: 2000)
        let merged = mine.rebased(from: base, onto: stored)
        #expect(merged.accessToken == "a3")
        #expect(merged.issuedAt == Date(timeIntervalSince1970: 3000))
        #expect(merged.idToken?.subject == "3")
        #expect(merged.refreshToken == "r2")  // the echoed old one must not come back
        #expect(merged.deviceSecret == nil)
        #expect(merged.id == "id")
    }

    @Test func anUnchangedAccessTokenKeepsTheStoredOneWithItsLifetime() {
        let mine = token(access: "a1", refresh: "r3", subject: "1", device: "d1", issued: 1000)
        let stored = token(access: "a2", refresh: "r2", subject: "2", device: "d1", issued: 2000)
        let merged = mine.rebased(from: base, onto: stored)
        #expect(merged.accessToken == "a2")
        #expect(merged.issuedAt == Date(timeIntervalSince1970: 2000))
        #expect(merged.refreshToken == "r3")
        #expect(merged.idToken?.subject == "2")
    }
}
