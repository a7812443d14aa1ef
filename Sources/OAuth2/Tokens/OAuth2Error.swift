import Foundation

/// Every error of the OAuth 2.0 layer. Never contains a token, secret or password.
public enum OAuth2Error: Error, Equatable, Sendable, LocalizedError {
    /// The server answered with an RFC 6749 §5.2 error body (or a Bearer challenge's error).
    case server(error: String, description: String?, statusCode: Int)
    /// The token lacks the kind needed (no refresh token to refresh with, say).
    case missingToken(Token.Kind)
    /// The server does not advertise the endpoint needed.
    case missingEndpoint(String)
    /// An extra request parameter names one the client sets itself (`grant_type`, `refresh_token`,
    /// the client's credentials); nothing was sent.
    case reservedParameter(String)
    /// The server could not be reached, or did not answer in time.
    case network(String)
    /// The server's answer is not what the protocol says (not JSON, missing fields).
    case invalidResponse(String)
    /// The server answered with an HTTP error status and no OAuth error body (a 500 page, say).
    case unexpectedStatus(Int)
    /// A token or JWT that cannot be decoded.
    case invalidToken(String)
    /// A URL the client was to send a request to (the issuer, an endpoint from discovery, a
    /// redirect's target) is not `https` and not a loopback address; nothing was sent to it.
    case insecureTransport(String)
    /// A discovery document names an issuer other than the configured one (RFC 8414 §3.3, OIDC
    /// Discovery §4.3): its endpoints are not used.
    case issuerMismatch(expected: String, received: String?)
    /// The server redirected a request to another origin; the request, which may carry the client
    /// secret or a token, was not repeated there.
    case redirectRefused(String)
    /// The ID token the server returned failed validation (OpenID Connect Core §3.1.3.7); the
    /// token was not returned.
    case invalidIDToken(IDTokenValidationError)
    /// The token is DPoP-bound (`token_type` `DPoP`) but has no ``DPoPKey`` with it (it was stored
    /// without one, or decoded from a raw response): no proof can be made, so nothing was sent.
    case dpopKeyMissing
    /// A grant sent a DPoP proof but the server answered with a token of another type (a Bearer
    /// token): it was not returned, since it would not be bound to the key.
    case dpopNotBound(tokenType: String)
    /// The server asked for a new DPoP nonce (`use_dpop_nonce`) again after the request was
    /// retried once with the nonce it gave, or gave no nonce to retry with.
    case dpopNonceRefused(statusCode: Int)

    public var errorDescription: String? {
        switch self {
        case .server(let error, let description, let status):
            "The server refused the request (\(status) \(error)\(description.map { ": \($0)" } ?? ""))."
        case .missingToken(let kind): "The credential has no \(kind.rawValue)."
        case .missingEndpoint(let name): "The server does not advertise a \(name) endpoint."
        case .reservedParameter(let name): "The parameter \(name) is set by the client itself and cannot be given."
        case .network(let detail): "Network error: \(detail)."
        case .invalidResponse(let detail): "Invalid server response: \(detail)."
        case .unexpectedStatus(let status): "The server answered with HTTP status \(status)."
        case .invalidToken(let detail): "Invalid token: \(detail)."
        case .insecureTransport(let detail):
            "Refused to use \(detail): only https is allowed, and http only to a loopback address."
        case .issuerMismatch(let expected, let received?):
            "The discovery document is about the issuer \"\(received)\", not the configured issuer \"\(expected)\" "
                + "(the two must be identical)."
        case .issuerMismatch(let expected, nil):
            "The discovery document names no issuer URL; the configured issuer is \"\(expected)\"."
        case .redirectRefused(let detail): "The server redirected the request to \(detail); it was not followed."
        case .invalidIDToken(let reason): reason.errorDescription
        case .dpopKeyMissing:
            "The token is DPoP-bound, but no DPoP key is stored with it; sign in again to get a new token."
        case .dpopNotBound(let type):
            "The server answered a DPoP proof with a \(type) token, which is not bound to the key; it was not used."
        case .dpopNonceRefused(let status):
            "The server refused the DPoP proof's nonce again after one retry (HTTP status \(status))."
        }
    }
}
