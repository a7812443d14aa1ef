import Foundation
import Locking
import TokenVault

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An ``HTTPClient`` that forwards every request to another client (the default URLSession one
/// unless told otherwise) and records the method and URL of those sent to one origin: never a
/// header, and of a form body only the fields a test names (`audience`, `scope`), never the others,
/// which carry secrets.
///
/// Recording only `origin` keeps a test's count its own while the client is the process-wide
/// `Credential.httpClient`; `failure`, when set, is thrown instead of forwarding a request to that
/// origin (after recording it).
public final class RecordingHTTPClient: HTTPClient {
    /// One request seen: its method and URL.
    public struct Request: Sendable, Hashable, CustomStringConvertible {
        public let method: String
        public let url: URL
        /// The fields of the form body the recorder was told to keep, as sent.
        public let form: [String: String]

        /// A request.
        ///
        /// - Parameters:
        ///   - method: `GET`, `POST`.
        ///   - url: The URL.
        ///   - form: The recorded form fields.
        public init(method: String, url: URL, form: [String: String] = [:]) {
            self.method = method
            self.url = url
            self.form = form
        }

        /// The URL's path as sent, trailing slash and all (`/token/`).
        public var path: String { URLComponents(url: url, resolvingAgainstBaseURL: false)?.path ?? url.path }
        public var description: String { "\(method) \(path)" }
    }

    private let origin: URL
    private let next: any HTTPClient
    private let failure: (any Error)?
    private let formFields: Set<String>
    private let seen = Locked<[Request]>([])

    /// A recorder.
    ///
    /// - Parameters:
    ///   - origin: The scheme, host and port whose requests are recorded (a server's URL).
    ///   - next: Where requests go; a ``URLSessionHTTPClient`` on the shared session by default.
    ///   - failure: Thrown for requests to `origin` instead of sending them, when given.
    ///   - formFields: The form-body fields to record with each request; name none that carries a
    ///     secret (a token, a client secret, a password, a code).
    public init(
        recording origin: URL, forwardingTo next: any HTTPClient = URLSessionHTTPClient(),
        failure: (any Error)? = nil, formFields: Set<String> = []
    ) {
        self.origin = origin
        self.next = next
        self.failure = failure
        self.formFields = formFields
    }

    /// The requests to the origin so far, in the order they were sent.
    public var requests: [Request] { seen.value }

    /// `METHOD /path` for each request so far.
    public var lines: [String] { requests.map(\.description) }

    /// How many requests went to each path so far.
    public var countsByPath: [String: Int] { Dictionary(requests.map { ($0.path, 1) }, uniquingKeysWith: +) }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        if let url = request.url, Self.sameOrigin(url, origin) {
            let form = formFields.isEmpty ? [:] : Self.formFields(of: request, keeping: formFields)
            seen.withLock { $0.append(Request(method: request.httpMethod ?? "GET", url: url, form: form)) }
            if let failure { throw failure }
        }
        return try await next.send(request)
    }

    /// The `names` fields of an `application/x-www-form-urlencoded` body (`+` is a space).
    private static func formFields(of request: URLRequest, keeping names: Set<String>) -> [String: String] {
        guard let body = request.httpBody,
            request.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true
        else { return [:] }
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            if let name = parts.first, names.contains(name) { fields[name] = parts.count > 1 ? parts[1] : "" }
        }
        return fields
    }

    private static func sameOrigin(_ first: URL, _ second: URL) -> Bool {
        first.scheme?.lowercased() == second.scheme?.lowercased()
            && first.host?.lowercased() == second.host?.lowercased()
            && first.port == second.port
    }
}
