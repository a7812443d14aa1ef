import Foundation
import TokenVault

/// Token responses and ID tokens for tests (unsigned: the library reads claims, it does not verify).
public enum TestTokens {
    /// The issuer used by test tokens.
    public static let issuer = URL(string: "https://issuer.example.com")!
    /// The context used by test tokens.
    public static let context = Token.Context(issuer: issuer, clientID: "test-client", scopes: ["openid", "profile"])

    /// Base64url without padding.
    public static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A compact JWT with `claims` as its payload.
    ///
    /// - Parameter claims: The payload (any JSON-serialisable dictionary).
    /// - Returns: `header.payload.signature`.
    public static func jwt(_ claims: [String: Any]) -> String {
        // Sorted keys in both parts, so the same claims always give the same JWT (tests compare them).
        let header = try! JSONSerialization.data(
            withJSONObject: ["alg": "RS256", "typ": "JWT", "kid": "test"], options: [.sortedKeys])
        let payload = try! JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        return "\(base64URL(header)).\(base64URL(payload)).\(base64URL(Data("signature".utf8)))"
    }

    /// A token response body (RFC 6749 §5.1).
    ///
    /// - Parameters:
    ///   - subject: The ID token's `sub`.
    ///   - email: The ID token's `email`.
    ///   - roles: The ID token's `roles`.
    ///   - preferredUsername: The ID token's `preferred_username`; none by default.
    ///   - expiresIn: The access token lifetime.
    ///   - refreshToken: Whether to include a refresh token.
    /// - Returns: The JSON body.
    public static func response(
        subject: String = "jane.doe@example.com", email: String? = "jane.doe@example.com", roles: [String] = ["user"],
        preferredUsername: String? = nil, expiresIn: Int = 3600, refreshToken: Bool = true
    ) -> Data {
        var idClaims: [String: Any] = [
            "sub": subject, "iss": issuer.absoluteString, "aud": "test-client", "iat": 1_700_000_000,
            "exp": 1_700_003_600, "roles": roles, "name": "Jane Doe",
        ]
        if let email { idClaims["email"] = email }
        if let preferredUsername { idClaims["preferred_username"] = preferredUsername }
        var body: [String: Any] = [
            "access_token": "at-\(UUID().uuidString)", "token_type": "Bearer", "expires_in": expiresIn,
            "scope": "openid profile", "id_token": jwt(idClaims),
        ]
        if refreshToken { body["refresh_token"] = "rt-\(UUID().uuidString)" }
        return try! JSONSerialization.data(withJSONObject: body)
    }

    /// A decoded token.
    ///
    /// - Parameters:
    ///   - subject: The ID token's `sub`.
    ///   - roles: The ID token's `roles`.
    ///   - preferredUsername: The ID token's `preferred_username`; none by default.
    ///   - expiresIn: The access token lifetime.
    /// - Returns: The token.
    public static func token(
        subject: String = "jane.doe@example.com", roles: [String] = ["user"], preferredUsername: String? = nil,
        expiresIn: Int = 3600
    ) -> Token {
        try! Token(
            response: response(
                subject: subject, roles: roles, preferredUsername: preferredUsername, expiresIn: expiresIn),
            context: context)
    }
}
