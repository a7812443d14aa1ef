import Foundation
import OAuth2

/// One signed-in user's credentials in the shape of Auth0's `CredentialsManager`: store them,
/// ask whether they are valid, and get them renewed when they are about to expire. A thin layer
/// over `Credential` (single-flight refresh included) in `Credential.tokenStorage`.
public final class CredentialsManager: Sendable {
    /// Which managed credentials these are (several managers can share a storage).
    public let name: String

    private static let tag = "credentialsManager"

    /// A manager.
    ///
    /// - Parameter name: Which managed credentials; `"default"` unless given.
    public init(name: String = "default") {
        self.name = name
    }

    /// Stores `credentials`, replacing the ones managed before.
    ///
    /// - Parameter credentials: The token set.
    /// - Throws: ``CredentialError``.
    public func store(credentials: Token) throws {
        let previous = try managed()
        try Credential.store(credentials, tags: [Self.tag: name])
        try previous?.remove()
    }

    /// Whether the stored credentials can be renewed (they have a refresh token).
    public func canRenew() -> Bool {
        (try? managed()?.currentToken())?.refreshToken != nil
    }

    /// Whether credentials are stored whose access token is valid for at least `minTTL` seconds.
    ///
    /// - Parameter minTTL: The minimum remaining lifetime, in seconds.
    /// - Returns: `true` when they are.
    public func hasValid(minTTL: Int = 0) -> Bool {
        guard let token = try? managed()?.currentToken() else { return false }
        return token.expiresAt.timeIntervalSinceNow > TimeInterval(minTTL)
    }

    /// The credentials, renewed first (one request however many callers) when they expire within
    /// `minTTL` seconds.
    ///
    /// - Parameter minTTL: The minimum remaining lifetime, in seconds.
    /// - Returns: Valid credentials.
    /// - Throws: ``CredentialError/notFound(_:)`` when none are stored, ``CredentialError/storage(_:)``
    ///   (``VaultError/locked`` when locking wiped them),
    ///   ``CredentialError/oauth2(_:)`` when renewal fails (`missingToken` without a refresh token),
    ///   ``CredentialError/minTTLTooLarge(_:)`` when even fresh tokens live shorter than `minTTL`.
    public func credentials(minTTL: Int = 0) async throws -> Token {
        guard let credential = try managed() else { throw CredentialError.notFound("managed credentials \(name)") }
        let current = try credential.currentToken()
        if current.expiresAt.timeIntervalSinceNow > TimeInterval(minTTL) { return current }
        guard current.refreshToken != nil else { throw CredentialError.oauth2(.missingToken(.refreshToken)) }
        try await credential.refreshIfNeeded(graceInterval: TimeInterval(minTTL))
        let token = try credential.currentToken()
        guard token.expiresAt.timeIntervalSinceNow > TimeInterval(minTTL) else {
            throw CredentialError.minTTLTooLarge(minTTL)
        }
        return token
    }

    /// Removes the stored credentials, locally.
    ///
    /// - Returns: Whether anything was removed.
    @discardableResult
    public func clear() -> Bool {
        guard let credential = (try? managed()) ?? nil else { return false }
        return (try? credential.remove()) != nil
    }

    /// Revokes the credentials at the server, then removes them.
    ///
    /// - Throws: ``CredentialError``; nothing is removed when the server cannot be reached.
    public func revoke() async throws {
        try await managed()?.revoke(type: .all)
    }

    private func managed() throws -> Credential? {
        try Credential.find(tags: [Self.tag: name]).first
    }
}
