import Foundation
import OAuth2

extension Credential {
    /// Sends a refresh request with `parameters` (an `audience` and a `scope`, say) and gives back
    /// the server's answer without storing its access token: the stored token keeps its own.
    ///
    /// It runs under the refresh lease, as a refresh does, because the server may rotate the
    /// refresh token: a rotated one is written into the stored token (with a compare-and-swap, like
    /// a refresh) before this returns, so the next refresh never replays the old one.
    /// - Parameter parameters: Extra form fields for the refresh request.
    /// - Returns: The stored token with the server's answer merged in (its id is the stored one's).
    /// - Throws: ``CredentialError/oauth2(_:)`` (nothing is changed in storage),
    ///   ``CredentialError/removed(_:)``, ``CredentialError/storage(_:)``.
    func exchangeRefreshToken(parameters: [String: String]) async throws -> Token {
        _ = try currentToken()
        return try await CredentialError.translating {
            let owner = UUID().uuidString
            _ = try await acquireRefreshLease(owner: owner)
            defer { try? storage.releaseRefreshLease(id: id, owner: owner) }
            let generation = vault?.keyGeneration  // before the read: a wipe from now on counts
            guard
                let stored = try storage.storedToken(id: id, prompt: nil, authenticationContext: authenticationContext)
            else { throw CredentialError.removed(id) }
            let answer = try await oauth2.refresh(stored.token, parameters: parameters)
            if answer.refreshToken != stored.token.refreshToken {
                let kept = stored.token.withRefreshToken(answer.refreshToken)
                let written = try await persistRefresh(kept, refreshedFrom: stored)
                update(token: written.token, metadata: written.metadata, generation: generation)
            }
            return answer
        }
    }
}

extension Token {
    /// The same token with another refresh token.
    func withRefreshToken(_ refreshToken: String?) -> Token {
        Token(
            id: id, tokenType: tokenType, accessToken: accessToken, refreshToken: refreshToken, idToken: idToken,
            deviceSecret: deviceSecret, scope: scope, issuedAt: issuedAt, expiresIn: expiresIn, context: context)
    }
}
