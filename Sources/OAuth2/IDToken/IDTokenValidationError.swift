import Foundation

/// Why an ID token was refused (OpenID Connect Core §3.1.3.7): each case names the check that
/// failed. Never contains the token, a claim's value or a key.
public enum IDTokenValidationError: Error, Equatable, Sendable, LocalizedError {
    /// The token is not a compact JWS this library reads; the text says which part (fixed words,
    /// never the token's bytes).
    case malformed(String)
    /// The header's `alg` is `none`, a symmetric or unknown algorithm, or one the options do not
    /// allow; the text is the algorithm's name when it is a short plain name.
    case unsupportedAlgorithm(String)
    /// No key of the issuer's key set matches the header's `kid` (after the one refetch allowed),
    /// or without a `kid` the set has not exactly one key for the algorithm.
    case unknownKey
    /// The key the header's `kid` names is not a key for the header's algorithm (an `RSA` key for
    /// `ES256`, say): the token may not choose how its key is used.
    case wrongKeyType
    /// The signature does not verify under the issuer's key: forged or tampered.
    case badSignature
    /// `iss` is not exactly the issuer.
    case wrongIssuer
    /// `aud` does not contain the client id.
    case wrongAudience
    /// `azp` is present and is not the client id.
    case wrongAuthorizedParty
    /// `exp` is in the past by more than the leeway.
    case expired
    /// `iat` is in the future by more than the leeway.
    case issuedInTheFuture
    /// `nonce` is not the one sent with the authorization request.
    case wrongNonce
    /// A refreshed ID token's `sub` is not the one of the ID token it replaces (OIDC Core §12.2).
    case wrongSubject
    /// A claim the checks need is absent (`iss`, `sub`, `aud`, `exp`, `iat`, `nonce`, or `azp` with
    /// several audiences); the text is its name.
    case missingClaim(String)

    public var errorDescription: String? {
        switch self {
        case .malformed(let part): "The ID token is malformed: \(part)."
        case .unsupportedAlgorithm(let name): "The ID token's algorithm \(name) is not accepted."
        case .unknownKey: "The ID token was signed with a key the issuer does not publish."
        case .wrongKeyType: "The ID token names a key of the issuer that is not for its algorithm."
        case .badSignature: "The ID token's signature does not verify: it is forged or was changed."
        case .wrongIssuer: "The ID token was issued by another issuer."
        case .wrongAudience: "The ID token was issued to another client."
        case .wrongAuthorizedParty: "The ID token's authorized party is another client."
        case .expired: "The ID token has expired."
        case .issuedInTheFuture: "The ID token's issue time is in the future."
        case .wrongNonce: "The ID token's nonce is not the one sent with the authorization request."
        case .wrongSubject: "The refreshed ID token is about another user than the one it replaces."
        case .missingClaim(let name): "The ID token has no \(name) claim."
        }
    }
}
