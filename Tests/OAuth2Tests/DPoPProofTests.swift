import Foundation
import OAuth2
import TestSupport
import Testing
import VaultCrypto

/// DPoP proofs (RFC 9449 §4.2) as `DPoPKey` makes them: the header, every claim, and a signature
/// that the ID-token layer's own key (`JWK`, from the proof's public key) verifies.
@Suite struct DPoPProofTests {
    /// The Ed25519 key of RFC 8037 Appendix A.1.
    static let rfc8037Seed = "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"
    static let rfc8037X = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"

    static func rfc8037Key() throws -> DPoPKey {
        let seed = try #require(Data(base64Encoded: Self.padded(rfc8037Seed)))
        return try DPoPKey(seed: SecureBytes(copying: seed))
    }

    static func padded(_ base64URL: String) -> String {
        let base64 = base64URL.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        return base64 + String(repeating: "=", count: (4 - base64.count % 4) % 4)
    }

    /// The proof's three parts: header, claims, and whether its signature verifies under the key
    /// its own header carries, checked by `JWK` (libsodium's `crypto_sign_verify_detached`).
    static func parts(_ proof: String) throws -> (header: [String: JSONValue], claims: [String: JSONValue], valid: Bool)
    {
        let jwt = try JWT(proof)
        let pieces = proof.split(separator: ".", omittingEmptySubsequences: false)
        #expect(pieces.count == 3)
        guard case .object(let jwk)? = jwt.header["jwk"] else {
            Issue.record("the header has no jwk")
            return (jwt.header, jwt.claims, false)
        }
        let set = try JWKSet(json: JSONEncoder().encode(["keys": [jwk]]))
        let key = try #require(set.keys.first)
        let signature = try #require(Data(base64Encoded: padded(String(pieces[2]))))
        let valid = key.isValidSignature(
            Array(signature), for: Array("\(pieces[0]).\(pieces[1])".utf8))
        return (jwt.header, jwt.claims, valid)
    }

    @Test func theThumbprintAndSignaturesMatchRFC8037() throws {
        let key = try Self.rfc8037Key()
        #expect(key.publicJWK == ["kty": .string("OKP"), "crv": .string("Ed25519"), "x": .string(Self.rfc8037X)])
        #expect(key.thumbprint == "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k")  // Appendix A.3
        // Appendix A.4: the signature of "Example of Ed25519 signing" under {"alg":"EdDSA"}.
        let signing = try Ed25519SigningKey(
            seed: SecureBytes(copying: try #require(Data(base64Encoded: Self.padded(Self.rfc8037Seed)))))
        let signature = signing.signature(for: Array("eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc".utf8))
        #expect(
            Data(signature).base64EncodedString()
                == Self.padded(
                    "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"))
    }

    @Test func aResourceProofCarriesEveryClaimAndVerifies() throws {
        let key = DPoPKey()
        let issuedAt = Date(timeIntervalSince1970: 1_800_000_000.75)
        let proof = key.proof(
            method: "post", url: URL(string: "https://api.example.com/v1/items?page=2#top")!,
            accessToken: "access-token-value", nonce: "server-nonce", issuedAt: issuedAt)
        let (header, claims, valid) = try Self.parts(proof)
        #expect(valid)
        #expect(header["typ"] == .string("dpop+jwt"))
        #expect(header["alg"] == .string("EdDSA"))
        #expect(header["jwk"] == .object(key.publicJWK))
        #expect(Set(header.keys) == ["typ", "alg", "jwk"])
        #expect(claims["htm"] == .string("POST"))
        #expect(claims["htu"] == .string("https://api.example.com/v1/items"))
        #expect(claims["iat"] == .number(1_800_000_000))
        #expect(claims["nonce"] == .string("server-nonce"))
        // ath is base64url(SHA-256(access token)), which is what PKCE's S256 computes of a verifier.
        #expect(claims["ath"] == .string(PKCE(verifier: "access-token-value").challenge))
        #expect(claims["jti"]?.stringValue?.count == 22)  // 16 random bytes, base64url
        #expect(Set(claims.keys) == ["jti", "htm", "htu", "iat", "ath", "nonce"])
    }

    @Test func aTokenRequestProofHasNoAthAndNoNonceUnlessGiven() throws {
        let proof = DPoPKey().proof(method: "POST", url: URL(string: "https://issuer.example.com/token")!)
        let (_, claims, valid) = try Self.parts(proof)
        #expect(valid)
        #expect(claims["ath"] == nil)
        #expect(claims["nonce"] == nil)
        #expect(claims["htu"] == .string("https://issuer.example.com/token"))
    }

    @Test func everyProofHasItsOwnJTI() throws {
        let key = DPoPKey()
        let url = URL(string: "https://api.example.com/")!
        let ids = try (0..<50).map { _ in try Self.parts(key.proof(method: "GET", url: url)).claims["jti"] }
        #expect(Set(ids.compactMap { $0?.stringValue }).count == 50)
    }

    @Test func aTamperedProofDoesNotVerify() throws {
        let key = DPoPKey()
        let proof = key.proof(method: "GET", url: URL(string: "https://api.example.com/a")!)
        let pieces = proof.split(separator: ".").map(String.init)
        let other = DPoPKey().proof(method: "GET", url: URL(string: "https://api.example.com/b")!)
        let otherPayload = other.split(separator: ".").map(String.init)[1]
        // The header (and key) of one proof, the claims of another.
        let forged = [pieces[0], otherPayload, pieces[2]].joined(separator: ".")
        #expect(try Self.parts(forged).valid == false)
    }

    @Test func twoKeysDifferAndAKeyEqualsItsStoredSeed() throws {
        let key = DPoPKey()
        #expect(key != DPoPKey())
        let copy = try key.withSeed { try DPoPKey(seed: SecureBytes(copying: $0)) }
        #expect(copy == key)
        #expect(copy.thumbprint == key.thumbprint)
    }
}
