import Foundation
import Locking
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A scripted HTTP server on 127.0.0.1 and a free port (`Resources/stub_http_server.py`, Python
/// standard library only), for answers no real authorization server gives: a discovery document
/// about another issuer, plain-http endpoints, a token endpoint that redirects elsewhere, a
/// `token_type` with a line break. It records every request, so a test can show what reached it.
/// Stopped by its own PID.
public final class StubHTTPServer: Sendable {
    /// One request the server received.
    public struct Request: Sendable, Decodable {
        /// `GET`, `POST`, ...
        public let method: String
        /// The path with its query.
        public let path: String
        /// The headers as received.
        public let headers: [String: String]
        /// The body, as UTF-8.
        public let body: String

        /// The value of a header, whatever its case.
        ///
        /// - Parameter name: The header name.
        /// - Returns: Its value.
        public func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }
    }

    static let script = AuthorizationServer.repository.appendingPathComponent(
        "Tests/TestSupport/Resources/stub_http_server.py")

    /// The Python interpreter itself, not a wrapper such as a pyenv shim: a shell wrapper waiting
    /// for its child would hold back the SIGTERM that ``stop()`` sends.
    static let python: URL? = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import http.server, sys; print(sys.executable)"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let path = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        process.waitUntilExit()
        return process.terminationStatus == 0 && !path.isEmpty ? URL(fileURLWithPath: path) : nil
    }()

    /// Whether `python3` can run the server (for `.enabled(if:)`).
    public static var isAvailable: Bool { python != nil }

    /// The comment shown for tests skipped by ``isAvailable``.
    public static let skipComment: Comment = "needs python3 for the scripted HTTP server"

    /// `http://127.0.0.1:PORT`.
    public let url: URL
    private let process: Locked<Process?>
    /// The server's standard input, never written: closing it (or this process dying) stops it.
    private let input: Pipe

    /// Starts a server and waits until it accepts connections.
    ///
    /// - Throws: ``AuthorizationServer/SetupFailure`` when it does not start.
    public init() throws {
        guard let python = Self.python else {
            throw AuthorizationServer.SetupFailure(reason: "python3 is not available")
        }
        let process = Process()
        process.executableURL = python
        process.arguments = [
            Self.script.path, "--parent-pid", "\(ProcessInfo.processInfo.processIdentifier)", "--exit-on-stdin-eof",
        ]
        let input = Pipe()
        process.standardInput = input
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard let url = TestServerProcess.url(of: process, output: output) else {
            process.terminate()
            process.waitUntilExit()
            throw AuthorizationServer.SetupFailure(reason: "the stub HTTP server did not start")
        }
        self.url = url
        self.process = Locked(process)
        self.input = input
    }

    /// Sets the answer to every request for `path`.
    ///
    /// - Parameters:
    ///   - path: The path, such as `/token` (a request's query is ignored when matching).
    ///   - status: The HTTP status.
    ///   - headers: Extra headers (`Location`, `Content-Type`).
    ///   - body: The body.
    public func route(_ path: String, status: Int = 200, headers: [String: String] = [:], body: String = "")
        async throws
    {
        try await setRoute(["path": path, "status": status, "headers": headers, "body": body])
    }

    /// Makes every request for `path` fail as a network failure does: the server closes the
    /// connection without answering.
    ///
    /// - Parameter path: The path.
    public func dropConnections(on path: String) async throws {
        try await setRoute(["path": path, "drop": true])
    }

    private func setRoute(_ route: [String: Any]) async throws {
        var request = URLRequest(url: url.appendingPathComponent("_stub/route"), timeoutInterval: 10)
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: route)
        let (_, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw AuthorizationServer.SetupFailure(reason: "the stub HTTP server refused a route")
        }
    }

    /// Sets `path` to answer with `json` as `application/json`.
    ///
    /// - Parameters:
    ///   - path: The path.
    ///   - json: A JSON-serializable object.
    ///   - status: The HTTP status.
    public func route(_ path: String, json: Any, status: Int = 200) async throws {
        let body = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys, .withoutEscapingSlashes])
        try await route(
            path, status: status, headers: ["Content-Type": "application/json"],
            body: String(decoding: body, as: UTF8.self))
    }

    /// Every request received so far, oldest first (the control requests left out).
    public func requests() async throws -> [Request] {
        let (data, _) = try await URLSession.shared.data(from: url.appendingPathComponent("_stub/requests"))
        return try JSONDecoder().decode([Request].self, from: data)
    }

    /// Stops the server by its own PID and waits for it to exit. Safe to call twice.
    public func stop() {
        TestServerProcess.stop(process)
    }

    deinit {
        stop()
    }
}
