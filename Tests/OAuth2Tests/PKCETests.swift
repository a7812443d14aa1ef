import OAuth2
import Testing

@Suite struct PKCETests {
    @Test func matchesTheRFC7636AppendixBVector() {
        let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(pkce.method == "S256")
        #expect(!pkce.description.contains(pkce.verifier))
    }

    @Test func freshVerifiersAre43UnreservedCharacters() {
        let first = PKCE()
        let second = PKCE()
        #expect(first.verifier.count == 43)
        #expect(first.verifier != second.verifier)
        #expect(first.verifier.allSatisfy { $0.isLetter || $0.isNumber || "-._~".contains($0) })
    }
}
