import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An in-process authorization server for `https://auth.bench.invalid`, as a `URLProtocol` registered
/// process-wide (`URLProtocol.registerClass`), so it answers the requests of `URLSession.shared`,
/// which every `Credential`'s own `OAuth2Client` uses: the public API needs no session injected.
/// Answers discovery and the token endpoint at once, and counts the requests.
final class StubTokenEndpoint: URLProtocol {
    /// The host it answers, over https as the OAuth client requires. `.invalid` never resolves
    /// (RFC 6761), so even without the stub nothing could leave the machine.
    static let host = "auth.bench.invalid"

    /// The request counters, shared by every loading instance.
    private final class Counters: Sendable {
        let token = Atomic<Int>(0)
        let discovery = Atomic<Int>(0)
    }

    private static let counters = Counters()

    /// Token endpoint requests since the last ``resetCounts()``.
    static var tokenRequests: Int { counters.token.load(ordering: .acquiring) }
    /// Discovery requests since the last ``resetCounts()``.
    static var discoveryRequests: Int { counters.discovery.load(ordering: .acquiring) }

    /// Sets both counters to zero.
    static func resetCounts() {
        counters.token.store(0, ordering: .releasing)
        counters.discovery.store(0, ordering: .releasing)
    }

    /// Registers the stub for the whole process. Idempotent.
    static func register() {
        _ = URLProtocol.registerClass(StubTokenEndpoint.self)
    }

    /// The token endpoint's URL under `issuer`.
    static func tokenEndpoint(of issuer: URL) -> URL {
        issuer.appendingPathComponent("token")
    }

    override class func canInit(with request: URLRequest) -> Bool {
        request.url?.scheme == "https" && request.url?.host == host
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    override func startLoading() {
        guard let url = request.url else { return }
        let status: Int
        let body: [String: Any]
        switch url.path {
        case "/.well-known/openid-configuration", "/.well-known/oauth-authorization-server":
            Self.counters.discovery.add(1, ordering: .acquiringAndReleasing)
            let issuer = "https://\(url.host ?? "")/"
            status = 200
            body = ["issuer": issuer, "token_endpoint": issuer + "token", "grant_types_supported": ["refresh_token"]]
        case "/token":
            Self.counters.token.add(1, ordering: .acquiringAndReleasing)
            status = 200
            body = [
                "access_token": "fresh-" + UUID().uuidString, "token_type": "Bearer", "expires_in": 3600,
                "refresh_token": TokenFixtures.refreshToken(),
            ]
        default:
            status = 404
            body = ["error": "not_found"]
        }
        let data = (try? JSONSerialization.data(withJSONObject: body)) ?? Data()
        let response = HTTPURLResponse(
            url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "application/json"])!
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: data)
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}
}
