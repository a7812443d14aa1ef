import Foundation
import OAuth2

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Credential {
    /// The transport of every credential's requests to its authorization server (refresh,
    /// revocation, introspection, userinfo, discovery): a ``URLSessionHTTPClient`` on
    /// `URLSession.shared` by default.
    ///
    /// Set it once at start-up for a proxy, client certificates (mTLS) or a test double. A change
    /// applies to every later request, of credentials loaded before it too; a request already sent
    /// finishes on the client it started with. Each credential's ``oauth2`` client still checks its
    /// transport policy (`https`, or `http` to a loopback address) before a request reaches this
    /// client, and still enforces ``requestTimeout``; redirects are this client's to follow or not
    /// (see ``HTTPClient``). Thread-safe.
    public static var httpClient: any HTTPClient {
        get { CredentialCoordinator.shared.httpClient }
        set { CredentialCoordinator.shared.httpClient = newValue }
    }
}

/// The transport of a credential's ``OAuth2Client``: whatever ``Credential/httpClient`` is when a
/// request is sent, so changing it reaches credentials made before the change.
struct CurrentCredentialHTTPClient: HTTPClient {
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        try await Credential.httpClient.send(request)
    }
}
