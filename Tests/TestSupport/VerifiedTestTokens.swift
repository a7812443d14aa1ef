import Foundation
import OAuth2

/// Tokens whose ID token a test key signed (as ``TestTokens/issuer``, for `test-client`), in two
/// forms: decoded from the raw response (unverified) and checked by ``IDTokenValidator`` (verified),
/// so tests can tell what keeps the mark and what drops it.
public enum VerifiedTestTokens {
    /// The P-256 key that signs the ID tokens.
    public static let signer = try! TestSigningKey(.p256, keyID: "ec-key")
    /// A validator for the test issuer and client, on a clock inside the tokens' lifetime.
    public static let validator = IDTokenValidator(
        issuer: TestTokens.issuer, clientID: "test-client",
        options: .init(clock: { Date(timeIntervalSince1970: 1_700_000_000) }))

    /// A token response with an ID token about `subject`, decoded, and the same token with its ID
    /// token validated.
    ///
    /// - Parameters:
    ///   - subject: The ID token's `sub`; its `email` is `subject@example.com`.
    ///   - accessToken: The access token.
    /// - Returns: Both forms, with the same id and strings.
    /// - Throws: When signing or validating fails.
    public static func tokens(subject: String = "user-1", accessToken: String = "at") throws -> (
        raw: Token, verified: Token
    ) {
        let idToken = try signer.token([
            "iss": TestTokens.issuer.absoluteString, "sub": subject, "email": "\(subject)@example.com",
            "aud": "test-client", "iat": 1_700_000_000, "exp": 1_700_003_600,
        ])
        let response = try JSONSerialization.data(withJSONObject: [
            "access_token": accessToken, "token_type": "Bearer", "expires_in": 60, "refresh_token": "rt",
            "id_token": idToken,
        ])
        let raw = try Token(response: response, context: TestTokens.context)
        let keys = try JWKSet(json: TestSigningKey.jwks([signer.publicJWK]))
        guard let rawIDToken = raw.idToken else { throw OAuth2Error.invalidToken("the response has no ID token") }
        let verified = Token(
            id: raw.id, tokenType: raw.tokenType, accessToken: raw.accessToken, refreshToken: raw.refreshToken,
            idToken: try validator.validate(rawIDToken, keys: keys), deviceSecret: nil, scope: nil,
            issuedAt: raw.issuedAt, expiresIn: raw.expiresIn, context: raw.context)
        return (raw, verified)
    }
}
