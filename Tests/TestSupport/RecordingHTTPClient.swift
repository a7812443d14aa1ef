import Foundation
import Locking
import TokenVault

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An ``HTTPClient`` that forwards every request to another client (the default URLSession one
/// unless told otherwise) and records the method and URL of those sent to one origin: never a
/// header or a body, which carry secrets.
///
/// Recording only `origin` keeps a test's count its own while the client is the process-wide
/// `Credential.httpClient`; `failure`, when set, is thrown instead of forwarding a request to that
/// origin (after recording it).
public final class RecordingHTTPClient: HTTPClient {
    /// One request seen: its method and URL.
    public struct Request: Sendable, Hashable, CustomStringConvertible {
        public let method: String
        public let url: URL

        /// A request.
        ///
        /// - Parameters:
        ///   - method: `GET`, `POST`.
        ///   - url: The URL.
        public init(method: String, url: URL) {
            self.method = method
            self.url = url
        }

        /// The URL's path as sent, trailing slash and all (`/token/`).
        public var path: String { URLComponents(url: url, resolvingAgainstBaseURL: false)?.path ?? url.path }
        public var description: String { "\(method) \(path)" }
    }

    private let origin: URL
    private let next: any HTTPClient
    private let failure: (any Error)?
    private let seen = Locked<[Request]>([])

    /// A recorder.
    ///
    /// - Parameters:
    ///   - origin: The scheme, host and port whose requests are recorded (a server's URL).
    ///   - next: Where requests go; a ``URLSessionHTTPClient`` on the shared session by default.
    ///   - failure: Thrown for requests to `origin` instead of sending them, when given.
    public init(
        recording origin: URL, forwardingTo next: any HTTPClient = URLSessionHTTPClient(),
        failure: (any Error)? = nil
    ) {
        self.origin = origin
        self.next = next
        self.failure = failure
    }

    /// The requests to the origin so far, in the order they were sent.
    public var requests: [Request] { seen.value }

    /// `METHOD /path` for each request so far.
    public var lines: [String] { requests.map(\.description) }

    /// How many requests went to each path so far.
    public var countsByPath: [String: Int] { Dictionary(requests.map { ($0.path, 1) }, uniquingKeysWith: +) }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        if let url = request.url, Self.sameOrigin(url, origin) {
            seen.withLock { $0.append(Request(method: request.httpMethod ?? "GET", url: url)) }
            if let failure { throw failure }
        }
        return try await next.send(request)
    }

    private static func sameOrigin(_ first: URL, _ second: URL) -> Bool {
        first.scheme?.lowercased() == second.scheme?.lowercased()
            && first.host?.lowercased() == second.host?.lowercased()
            && first.port == second.port
    }
}
