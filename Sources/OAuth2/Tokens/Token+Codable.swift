import Foundation

extension Token {
    private enum CodingKeys: String, CodingKey {
        case id, tokenType, accessToken, refreshToken, idToken, deviceSecret, scope, issuedAt, expiresIn, context
    }

    /// Decodes a token as ``encode(to:)`` wrote it, or from any JSON of that shape.
    ///
    /// The ID token comes back unverified (``idTokenVerified`` is `false`), whatever the data says:
    /// `Codable` data is plain text anyone can write, so a key in it claiming the ID token was
    /// checked (`"idTokenVerified": true`, which earlier versions wrote) is ignored. To keep the
    /// mark, store the token with `Credential.store` (a vault's token record seals it with the
    /// token), or check the ID token again with ``OAuth2Client/validatingIDToken(of:nonce:)``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id),
            tokenType: try container.decode(String.self, forKey: .tokenType),
            accessToken: try container.decode(String.self, forKey: .accessToken),
            refreshToken: try container.decodeIfPresent(String.self, forKey: .refreshToken),
            idToken: try container.decodeIfPresent(JWT.self, forKey: .idToken),
            deviceSecret: try container.decodeIfPresent(String.self, forKey: .deviceSecret),
            scope: try container.decodeIfPresent([String].self, forKey: .scope),
            issuedAt: try container.decode(Date.self, forKey: .issuedAt),
            expiresIn: try container.decode(TimeInterval.self, forKey: .expiresIn),
            context: try container.decode(Context.self, forKey: .context))
    }

    /// Encodes every field but the DPoP key and whether the ID token was verified.
    ///
    /// The key is left out because this encoding is plain text wherever it goes: a DPoP-bound token
    /// decoded from it has no key (and ``OAuth2Error/dpopKeyMissing`` when used). The verified mark
    /// is left out because decoding could not trust it (see ``init(from:)``). A vault's token records
    /// keep both, sealed with the token.
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
    }
}
