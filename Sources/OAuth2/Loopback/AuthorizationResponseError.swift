import Foundation

/// Why an authorization response that came back to a ``LoopbackRedirectReceiver`` gave no code.
/// Never contains the code, the state or the PKCE verifier.
public enum AuthorizationResponseError: Error, Equatable, Sendable, LocalizedError {
    /// The authorization server redirected back with an error (RFC 6749 §4.1.2.1), such as
    /// `access_denied` when the user declined.
    case denied(error: String, description: String?)
    /// The response's `state` is not the one sent with the request: it answers some other request,
    /// perhaps one a third party started (RFC 6749 §10.12), and its code is not used.
    case stateMismatch
    /// The response carries neither a code nor an error.
    case missingCode
    /// Nobody came back to the redirect URI in time.
    case timedOut
    /// The loopback listener could not be set up or read (the failing call and its `errno` text).
    case listener(String)

    public var errorDescription: String? {
        switch self {
        case .denied(let error, let description):
            "The authorization server refused the sign-in (\(error)\(description.map { ": \($0)" } ?? ""))."
        case .stateMismatch:
            "The authorization response does not answer this sign-in (its state differs); it was not used."
        case .missingCode: "The authorization response carries no code."
        case .timedOut: "Timed out waiting for the browser to come back with the authorization response."
        case .listener(let detail): "The loopback redirect listener failed: \(detail)."
        }
    }
}
