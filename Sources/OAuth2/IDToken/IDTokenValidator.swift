import Foundation

/// Checks an ID token as OpenID Connect Core §3.1.3.7 says, for one issuer and one client: the
/// signature under the issuer's published key, then `iss`, `aud`, `azp`, `exp`, `iat` and, when
/// one was sent, `nonce`.
///
/// ``OAuth2Client`` runs it on every ID token a grant or a refresh returns, with the issuer's keys
/// from its ``JWKSCache``; use it directly for an ID token you hold the keys for. Sendable.
///
/// ```swift
/// let validator = IDTokenValidator(issuer: issuer, clientID: "my-app")
/// let verified = try validator.validate(idToken, keys: try JWKSet(json: jwksDocument), nonce: nonce)
/// ```
public struct IDTokenValidator: Sendable {
    /// The issuer `iss` must name exactly.
    public let issuer: URL
    /// The client id `aud` must contain.
    public let clientID: String
    /// Leeway, clock, allowed algorithms and the key cache.
    public let options: Options

    /// A validator.
    ///
    /// - Parameters:
    ///   - issuer: The issuer.
    ///   - clientID: The client id.
    ///   - options: Leeway, clock, allowed algorithms; the defaults by default.
    public init(issuer: URL, clientID: String, options: Options = Options()) {
        self.issuer = issuer
        self.clientID = clientID
        self.options = options
    }

    /// Validates `idToken` with a key of `keys`.
    ///
    /// - Parameters:
    ///   - idToken: The ID token.
    ///   - keys: The issuer's keys.
    ///   - nonce: The nonce sent with the authorization request, if one was.
    ///   - subject: For a refreshed ID token, the `sub` of the one it replaces.
    /// - Returns: The same token, marked verified (``JWT/isVerified``).
    /// - Throws: ``IDTokenValidationError`` naming the first check that failed.
    public func validate(
        _ idToken: JWT, keys: JWKSet, nonce: String? = nil, subject: String? = nil
    ) throws(IDTokenValidationError) -> JWT {
        let jws = try signature(of: idToken)
        return try validate(
            idToken, jws, key: try keys.key(id: jws.keyID, algorithm: jws.algorithm), nonce: nonce,
            subject: subject)
    }

    /// The token's signature parts, once its header passed: what finding its key needs.
    ///
    /// - Parameter idToken: The ID token.
    /// - Returns: The parts.
    /// - Throws: ``IDTokenValidationError/malformed(_:)``, ``IDTokenValidationError/unsupportedAlgorithm(_:)``.
    func signature(of idToken: JWT) throws(IDTokenValidationError) -> CompactJWS {
        try CompactJWS(idToken, allowing: options.allowedAlgorithms)
    }

    /// Checks the signature of `jws` under `key`, then the claims.
    func validate(
        _ idToken: JWT, _ jws: CompactJWS, key: JWK, nonce: String?, subject: String?
    ) throws(IDTokenValidationError) -> JWT {
        guard key.algorithm == jws.algorithm else { throw .wrongKeyType }
        guard key.publicKey.isValidSignature(jws.signature, for: jws.signingInput) else { throw .badSignature }
        let claims = idToken.claims
        guard !claims.isEmpty else { throw .malformed("the payload is not a JSON object") }
        func string(_ name: String) throws(IDTokenValidationError) -> String {
            guard let value = claims[name] else { throw .missingClaim(name) }
            guard case .string(let text) = value else { throw .malformed("\(name) is not a string") }
            return text
        }
        func date(_ name: String) throws(IDTokenValidationError) -> Date {
            guard let value = claims[name] else { throw .missingClaim(name) }
            guard case .number(let seconds) = value else { throw .malformed("\(name) is not a number") }
            return Date(timeIntervalSince1970: seconds)
        }

        guard try string("iss") == issuer.absoluteString else { throw .wrongIssuer }
        let sub = try string("sub")
        let audience: [String]
        switch claims["aud"] {
        case nil: throw .missingClaim("aud")
        case .string(let single)?: audience = [single]
        case .array(let values)? where values.allSatisfy({ $0.stringValue != nil }):
            audience = values.compactMap(\.stringValue)
        default: throw .malformed("aud is not a string or an array of strings")
        }
        guard audience.contains(clientID) else { throw .wrongAudience }
        if claims["azp"] != nil || audience.count > 1 {
            guard try string("azp") == clientID else { throw .wrongAuthorizedParty }
        }
        let now = options.clock()
        let leeway = max(0, options.leeway)
        guard now < (try date("exp")).addingTimeInterval(leeway) else { throw .expired }
        guard try date("iat") <= now.addingTimeInterval(leeway) else { throw .issuedInTheFuture }
        if let nonce {
            guard try string("nonce") == nonce else { throw .wrongNonce }
        }
        if let subject, sub != subject { throw .wrongSubject }
        return idToken.markedVerified()
    }
}
