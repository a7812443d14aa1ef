import Foundation
import Locking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transport every request of an ``OAuth2Client`` goes through: discovery, token, refresh,
/// revocation, introspection, userinfo and device authorization alike.
///
/// Give a client one (``OAuth2Client/init(issuer:clientID:clientSecret:scopes:httpClient:)``) to
/// add a proxy, client certificates (mTLS), logging or a test double; the credentials of the
/// `Credentials` layer use the process-wide `Credential.httpClient`. The default is
/// ``URLSessionHTTPClient``.
///
/// What stays with ``OAuth2Client``, whatever the transport:
/// - The ``OAuth2Client/TransportPolicy``: every URL is checked before `send` is called, so a
///   request to plain `http` on a network (other than a loopback address) never reaches the
///   client and fails with ``OAuth2Error/insecureTransport(_:)``.
/// - The request timeout: a `send` that has not returned after ``OAuth2Client/requestTimeout``
///   is cancelled and fails with ``OAuth2Error/network(_:)``. The request carries the same
///   `timeoutInterval`.
/// - Status handling: a non-2xx answer becomes ``OAuth2Error/server(error:description:statusCode:)``
///   or ``OAuth2Error/unexpectedStatus(_:)``, a 3xx answer with a `Location` header
///   ``OAuth2Error/redirectRefused(_:)``.
/// - Errors: a thrown ``OAuth2Error`` is passed on as it is; a `URLError` becomes
///   ``OAuth2Error/network(_:)`` with its usual description; any other error becomes
///   ``OAuth2Error/network(_:)`` naming only the error's type, so nothing the error carries (a URL
///   with a query, a body) reaches the message.
///
/// What is the client's own:
/// - Redirects. ``OAuth2Client`` cannot see a redirect the client follows, and requests carry the
///   client secret (HTTP Basic or in the body), passwords and tokens. A client should not follow
///   redirects at all (``OAuth2Client`` then refuses the 3xx answer), or, as
///   ``URLSessionHTTPClient`` does, only within the request's origin and only to a URL the
///   transport policy permits.
/// - Cancellation: `send` runs in the caller's task; it should stop when that task is cancelled.
/// - Certificate checks, proxies, connection reuse.
///
/// Implementations are called concurrently, from any task, and must not log request bodies or
/// `Authorization` headers: they hold secrets.
public protocol HTTPClient: Sendable {
    /// Sends `request` and returns the answer, whatever its status.
    ///
    /// - Parameter request: The request; its URL is one the client's transport policy permits.
    /// - Returns: The body and the HTTP response, for any status code.
    /// - Throws: When no answer could be had (cannot connect, timed out, cancelled).
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)
}

/// The default ``HTTPClient``: a `URLSession`, with redirects followed only within the request's
/// origin.
///
/// URLSession follows redirects by itself and repeats the `Authorization` header (and, for 307 and
/// 308, the method and body) on them. This client follows a redirect only to the same origin
/// (scheme, host and port) and only to a URL its ``transportPolicy`` permits; any other fails with
/// ``OAuth2Error/redirectRefused(_:)`` or ``OAuth2Error/insecureTransport(_:)`` and the request is
/// not repeated there. It refuses a request URL the policy does not permit as well, cancels the
/// request when the caller's task is cancelled, and enforces the request's `timeoutInterval` as a
/// deadline (FoundationNetworking does not always, against a server that accepts the connection
/// and stalls).
///
/// Pass a session of your own for a proxy (`URLSessionConfiguration.connectionProxyDictionary`),
/// client certificates (a session delegate answering the client-certificate challenge) or other
/// settings; its delegate stays yours, the redirect check is set on each task.
///
/// ```swift
/// let configuration = URLSessionConfiguration.ephemeral
/// configuration.connectionProxyDictionary = [...]
/// let client = OAuth2Client(
///     issuer: issuer, clientID: "cli",
///     httpClient: URLSessionHTTPClient(session: URLSession(configuration: configuration)))
/// ```
public struct URLSessionHTTPClient: HTTPClient {
    /// The session requests go through.
    public let session: URLSession
    /// Which URLs this client sends a request or follows a redirect to.
    public let transportPolicy: OAuth2Client.TransportPolicy

    /// A client on `session`.
    ///
    /// - Parameters:
    ///   - session: The URL session; `URLSession.shared` by default.
    ///   - transportPolicy: Which URLs requests and redirects may go to;
    ///     ``OAuth2Client/TransportPolicy/httpsExceptLoopback`` by default. Give the same policy
    ///     as the ``OAuth2Client`` using this client.
    public init(session: URLSession = .shared, transportPolicy: OAuth2Client.TransportPolicy = .httpsExceptLoopback) {
        self.session = session
        self.transportPolicy = transportPolicy
    }

    /// Sends `request`, following a redirect only within its origin.
    ///
    /// - Parameter request: The request.
    /// - Returns: The body and the response.
    /// - Throws: ``OAuth2Error/insecureTransport(_:)`` for a URL or redirect target the policy
    ///   does not permit, ``OAuth2Error/redirectRefused(_:)`` for a redirect to another origin,
    ///   ``OAuth2Error/invalidResponse(_:)`` for an answer that is not HTTP, `URLError` when the
    ///   request fails (`timedOut` once `timeoutInterval` passes, `cancelled` when the task is).
    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        guard let url = request.url else { throw OAuth2Error.insecureTransport("a request without a URL") }
        try transportPolicy.check(url, as: "the URL")
        let redirects = RedirectGuard(origin: url, policy: transportPolicy)
        let (data, response) = try await Self.data(for: request, in: session, delegate: redirects)
        guard let http = response as? HTTPURLResponse else {
            throw OAuth2Error.invalidResponse("not an HTTP response")
        }
        if let refusal = redirects.refusal { throw refusal }
        return (data, http)
    }

    /// `session.data(for:)` with `delegate` as the task's delegate. `data(for:delegate:)` would say
    /// the same, but FoundationNetworking ignores that delegate for redirects (and follows them);
    /// a data task whose `delegate` is set is asked on Linux and Darwin alike. The task is
    /// cancelled once `timeoutInterval` passes, failing with `URLError(.timedOut)`: URLSession on
    /// Linux does not always enforce it against a server that accepted the connection and stalls.
    private static func data(
        for request: URLRequest, in session: URLSession, delegate: RedirectGuard
    ) async throws -> (Data, URLResponse) {
        let started = Locked<URLSessionDataTask?>(nil)
        let timedOut = Locked(false)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: timedOut.value ? URLError(.timedOut) : error)
                    } else if let response {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                task.delegate = delegate
                started.withLock { $0 = task }
                task.resume()
                if Task.isCancelled { task.cancel() }
                let timeout = request.timeoutInterval
                if timeout > 0, timeout < 365 * 86400 {
                    DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak task] in
                        guard let task, task.state != .completed else { return }
                        timedOut.withLock { $0 = true }
                        task.cancel()
                    }
                }
            }
        } onCancel: {
            started.withLock { $0?.cancel() }
        }
    }
}
