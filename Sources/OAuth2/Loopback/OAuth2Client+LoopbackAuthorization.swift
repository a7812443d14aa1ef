import Foundation
import VaultCrypto

extension OAuth2Client {
    /// Signs the user in with the authorization-code grant and PKCE through their browser, the
    /// way a native app does (RFC 8252): a ``LoopbackRedirectReceiver`` on `127.0.0.1` is the
    /// redirect URI, a fresh `state`, nonce and PKCE pair go with the request, and the code is
    /// exchanged only when the response's `state` matches.
    ///
    /// - Parameters:
    ///   - timeout: How long to wait for the browser to come back.
    ///   - open: Shows the authorization URL to the user (opens a browser, prints it); the URL
    ///     carries no secret. The listener is already bound when it is called.
    /// - Returns: The token, its ID token validated with the nonce.
    /// - Throws: ``AuthorizationResponseError`` for a response that gives no code (a different
    ///   `state`, an error such as `access_denied`, a timeout), else the errors of
    ///   ``exchange(code:verifier:redirectURI:nonce:)`` and of `open`.
    public func authorizeThroughLoopback(
        timeout: Duration = .seconds(300), open: @Sendable (URL) async throws -> Void
    ) async throws -> Token {
        let receiver = try LoopbackRedirectReceiver()
        defer { receiver.close() }
        let pkce = PKCE()
        let state = PKCE.base64URL(SecureRandom.bytes(count: 32))
        let nonce = PKCE.base64URL(SecureRandom.bytes(count: 32))
        let url = try await authorizationURL(
            redirectURI: receiver.redirectURI, state: state, pkce: pkce, nonce: nonce)
        try await open(url)
        let redirect = try await receiver.receive(timeout: timeout)
        let code = try AuthorizationResponse(redirect).code(expectedState: state)
        return try await exchange(code: code, verifier: pkce.verifier, redirectURI: receiver.redirectURI, nonce: nonce)
    }
}
