import Foundation

extension OAuth2Client {
    /// The form fields a caller cannot set on a token request: the client sets them itself, and a
    /// caller's value would change what is being asked for or who is asking.
    static let reservedTokenParameters: Set<String> = [
        "grant_type", "refresh_token", "client_id", "client_secret", "client_assertion", "client_assertion_type",
    ]

    /// Refreshes `token` (RFC 6749 §6) with extra form fields, such as `audience` or `scope` for a
    /// server that issues access tokens for another API from the same refresh token, and merges
    /// the answer into it as ``refresh(_:)`` does.
    ///
    /// - Parameters:
    ///   - token: The token to refresh.
    ///   - parameters: Extra form fields, sent as given; none may be one the client sets itself.
    /// - Returns: The merged token.
    /// - Throws: ``OAuth2Error/reservedParameter(_:)`` (nothing is sent),
    ///   ``OAuth2Error/missingToken(_:)`` without a refresh token, else as ``refresh(_:)`` (a
    ///   DPoP-bound token proves its own key here too).
    public func refresh(_ token: Token, parameters: [String: String]) async throws -> Token {
        if let reserved = parameters.keys.sorted().first(where: Self.reservedTokenParameters.contains) {
            throw OAuth2Error.reservedParameter(reserved)
        }
        guard let refreshToken = token.refreshToken else { throw OAuth2Error.missingToken(.refreshToken) }
        let extra = parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        let fresh = try await tokenRequest(
            [("grant_type", "refresh_token"), ("refresh_token", refreshToken)] + extra, context: token.context,
            subject: token.idToken?.subject, proofKey: try token.requiredDPoPKey())
        return token.merged(with: fresh)
    }
}
