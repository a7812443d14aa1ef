import Foundation

/// The query of the redirect that ends the authorization-code flow (RFC 6749 §4.1.2).
struct AuthorizationResponse {
    let items: [URLQueryItem]

    init(_ redirect: URL) {
        items = URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.queryItems ?? []
    }

    private func value(_ name: String) -> String? { items.first { $0.name == name }?.value }

    /// The code, once `state` matches; the state is checked first, so not even an error response
    /// for another request is believed.
    ///
    /// - Parameter state: The state sent with the authorization request.
    /// - Returns: The authorization code.
    /// - Throws: ``AuthorizationResponseError/stateMismatch``, ``AuthorizationResponseError/denied(error:description:)``
    ///   or ``AuthorizationResponseError/missingCode``.
    func code(expectedState state: String) throws(AuthorizationResponseError) -> String {
        guard let received = value("state"), Array(received.utf8) == Array(state.utf8) else {
            throw .stateMismatch
        }
        if let error = value("error") { throw .denied(error: error, description: value("error_description")) }
        guard let code = value("code"), !code.isEmpty else { throw .missingCode }
        return code
    }
}
