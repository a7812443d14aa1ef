import Foundation
import Locking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A task delegate that follows a redirect only within the request's origin and only to a URL the
/// transport policy permits.
///
/// URLSession repeats the `Authorization` header (HTTP Basic with the client secret, or a bearer
/// token), and for 307 and 308 the method and body (a `client_secret`, a refresh token), to
/// wherever a `Location` points, on Linux as on Darwin. A token endpoint that redirects elsewhere
/// would hand them to another host; refusing the redirect makes URLSession return the 3xx answer
/// itself, which ``URLSessionHTTPClient`` turns into ``OAuth2Error/redirectRefused(_:)``.
///
/// Set as the task's own delegate, so the session (and its delegate) stay the caller's. Sendable:
/// its only state is behind a lock.
final class RedirectGuard: NSObject, URLSessionTaskDelegate, Sendable {
    private let origin: URL
    private let policy: OAuth2Client.TransportPolicy
    private let refused = Locked<OAuth2Error?>(nil)

    /// A guard for one request.
    ///
    /// - Parameters:
    ///   - origin: The request's URL.
    ///   - policy: Which URLs may be requested.
    init(origin: URL, policy: OAuth2Client.TransportPolicy) {
        self.origin = origin
        self.policy = policy
    }

    /// Why the last redirect was refused, if one was.
    var refusal: OAuth2Error? { refused.value }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        guard let target = request.url else { return completionHandler(nil) }
        let targetOrigin = OAuth2Client.TransportPolicy.origin(of: target)
        if !policy.permits(target) {
            refused.withLock { $0 = .insecureTransport("a redirect (\(targetOrigin))") }
            completionHandler(nil)
        } else if !OAuth2Client.TransportPolicy.sameOrigin(origin, target) {
            refused.withLock { $0 = .redirectRefused("another origin (\(targetOrigin))") }
            completionHandler(nil)
        } else {
            completionHandler(request)
        }
    }
}
