import Foundation

extension Token {
    private enum CodingKeys: String, CodingKey {
        case id, tokenType, accessToken, refreshToken, idToken, deviceSecret, scope, issuedAt, expiresIn, context
        case idTokenVerified
    }

    /// Decodes a token as ``encode(to:)`` wrote it. `idTokenVerified` is `false` when absent, as in
    /// data written before it existed. A decoded token is trusted to be what was encoded: decode
    /// only from storage this app wrote, never a token from elsewhere.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let idToken = try container.decodeIfPresent(JWT.self, forKey: .idToken)
        let verified = try container.decodeIfPresent(Bool.self, forKey: .idTokenVerified) ?? false
        self.init(
            id: try container.decode(String.self, forKey: .id),
            tokenType: try container.decode(String.self, forKey: .tokenType),
            accessToken: try container.decode(String.self, forKey: .accessToken),
            refreshToken: try container.decodeIfPresent(String.self, forKey: .refreshToken),
            idToken: verified ? idToken?.markedVerified() : idToken,
            deviceSecret: try container.decodeIfPresent(String.self, forKey: .deviceSecret),
            scope: try container.decodeIfPresent([String].self, forKey: .scope),
            issuedAt: try container.decode(Date.self, forKey: .issuedAt),
            expiresIn: try container.decode(TimeInterval.self, forKey: .expiresIn),
            context: try container.decode(Context.self, forKey: .context))
    }

    /// Encodes every field but the DPoP key, and `idTokenVerified` when the ID token is verified.
    /// The key is left out because this encoding is plain text wherever it goes: a DPoP-bound token
    /// decoded from it has no key (and ``OAuth2Error/dpopKeyMissing`` when used). A vault's token
    /// records keep the key, sealed with the token.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(tokenType, forKey: .tokenType)
        try container.encode(accessToken, forKey: .accessToken)
        try container.encodeIfPresent(refreshToken, forKey: .refreshToken)
        try container.encodeIfPresent(idToken, forKey: .idToken)
        try container.encodeIfPresent(deviceSecret, forKey: .deviceSecret)
        try container.encodeIfPresent(scope, forKey: .scope)
        try container.encode(issuedAt, forKey: .issuedAt)
        try container.encode(expiresIn, forKey: .expiresIn)
        try container.encode(context, forKey: .context)
        if idTokenVerified { try container.encode(true, forKey: .idTokenVerified) }
    }

}
