import Foundation

extension OAuth2Client {
    /// The issuer's signing keys: the JWK set at the `jwks_uri` discovery names, fetched through
    /// the client's usual requests (transport policy, redirect guard, timeout). Not cached here:
    /// validation caches it in ``IDTokenValidator/Options/keyCache``.
    ///
    /// - Returns: The usable keys.
    /// - Throws: ``OAuth2Error/missingEndpoint(_:)`` when discovery names no `jwks_uri`,
    ///   ``OAuth2Error/invalidResponse(_:)`` for a document that is not a JWK set, else the
    ///   request's errors.
    public func jsonWebKeySet() async throws -> JWKSet {
        let url = try await endpoint("jwks_uri", "JWKS")
        let (data, _) = try await get(url)
        return try JWKSet(json: data)
    }

    /// Validates an ID token of this client's issuer (OpenID Connect Core §3.1.3.7) with the
    /// issuer's published keys: fetched on first use, then cached, and fetched once more for a key
    /// id the cached set lacks (see ``JWKSCache``).
    ///
    /// - Parameters:
    ///   - idToken: The ID token.
    ///   - nonce: The nonce sent with the authorization request, if one was.
    /// - Returns: The same token, marked verified.
    /// - Throws: ``OAuth2Error/invalidIDToken(_:)`` naming the check that failed, else the errors
    ///   of ``jsonWebKeySet()``.
    public func validateIDToken(_ idToken: JWT, nonce: String? = nil) async throws -> JWT {
        try await validateIDToken(idToken, nonce: nonce, subject: nil)
    }

    /// `token` with its ID token validated as ``validateIDToken(_:nonce:)`` does, for a token that
    /// did not come from this client's own grants (which validate already): one decoded from a raw
    /// response with ``Token/init(response:context:issuedAt:)``, as `tokenvault import` reads it.
    ///
    /// - Parameters:
    ///   - token: The token.
    ///   - nonce: The nonce sent with the authorization request, if one was.
    /// - Returns: The same token, its ID token marked verified.
    /// - Throws: ``OAuth2Error/invalidIDToken(_:)`` naming the check that failed (also for a token
    ///   without an ID token, since nothing could be verified), else the errors of ``jsonWebKeySet()``.
    public func validatingIDToken(of token: Token, nonce: String? = nil) async throws -> Token {
        guard token.idToken != nil else {
            throw OAuth2Error.invalidIDToken(.malformed("the token has no ID token to verify"))
        }
        return try await validatingIDToken(of: token, nonce: nonce, subject: nil)
    }

    /// `token` with its ID token validated; `token` itself when it has none.
    func validatingIDToken(of token: Token, nonce: String?, subject: String?) async throws -> Token {
        guard let idToken = token.idToken else { return token }
        let verified = try await validateIDToken(idToken, nonce: nonce, subject: subject)
        return Token(
            id: token.id, tokenType: token.tokenType, accessToken: token.accessToken, refreshToken: token.refreshToken,
            idToken: verified, deviceSecret: token.deviceSecret, scope: token.scope, issuedAt: token.issuedAt,
            expiresIn: token.expiresIn, context: token.context, dpopKey: token.dpopKey)
    }

    private func validateIDToken(_ idToken: JWT, nonce: String?, subject: String?) async throws -> JWT {
        let validator = IDTokenValidator(issuer: issuer, clientID: clientID, options: idTokenValidation)
        do {
            let jws = try validator.signature(of: idToken)
            let key = try await idTokenValidation.keyCache.key(
                issuer: issuer, id: jws.keyID, algorithm: jws.algorithm, now: idTokenValidation.clock()
            ) { try await self.jsonWebKeySet() }
            return try validator.validate(idToken, jws, key: key, nonce: nonce, subject: subject)
        } catch let error as IDTokenValidationError {
            throw OAuth2Error.invalidIDToken(error)
        }
    }
}
