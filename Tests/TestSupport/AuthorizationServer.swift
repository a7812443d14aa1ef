import Foundation
import Locking
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The local Django OAuth Toolkit server (`Tests/AuthorizationServer`), one per test that needs
/// specific settings, on 127.0.0.1 and a free port, stopped by its own PID.
public final class AuthorizationServer: Sendable {
    /// Server settings that Django reads at start: a different lifetime means another server.
    public struct Settings: Sendable, Hashable {
        public var accessTokenLifetime: Int
        public var rotateRefreshTokens: Bool
        public var reuseProtection: Bool
        public var gracePeriod: Int
        public var apiAudiences: [String]
        public var deviceIDToken: Bool

        /// Settings.
        ///
        /// - Parameters:
        ///   - accessTokenLifetime: Seconds an access token lives.
        ///   - rotateRefreshTokens: Whether a refresh issues a new refresh token.
        ///   - reuseProtection: Whether replaying a rotated refresh token revokes the whole family.
        ///   - gracePeriod: Seconds a rotated refresh token still works.
        ///   - apiAudiences: The APIs a refresh may name in `audience` to get an access token for
        ///     that API, as from Auth0; none by default, and the parameter is then ignored.
        ///   - deviceIDToken: Whether the device grant returns an ID token when the scope has
        ///     `openid`, as OpenID providers do; DOT's own grant never does (the default).
        public init(
            accessTokenLifetime: Int = 3600, rotateRefreshTokens: Bool = true, reuseProtection: Bool = true,
            gracePeriod: Int = 0, apiAudiences: [String] = [], deviceIDToken: Bool = false
        ) {
            self.accessTokenLifetime = accessTokenLifetime
            self.rotateRefreshTokens = rotateRefreshTokens
            self.reuseProtection = reuseProtection
            self.gracePeriod = gracePeriod
            self.apiAudiences = apiAudiences
            self.deviceIDToken = deviceIDToken
        }
    }

    /// The repository root, found from this file's path.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let stateDirectory = repository.appendingPathComponent(".build/auth-server")

    /// Whether the server could be set up, and why not: `setup.sh` runs once per test process (it
    /// is quick when `make test` already ran it).
    public static let setup: Result<Void, SetupFailure> = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [
            repository.appendingPathComponent("Tests/AuthorizationServer/setup.sh").path, stateDirectory.path,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        do {
            try process.run()
        } catch {
            return .failure(SetupFailure(reason: "cannot run setup.sh: \(error)"))
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let last = text.split(separator: "\n").last.map(String.init) ?? "exit \(process.terminationStatus)"
            let failure = SetupFailure(reason: last)
            FileHandle.standardError.write(Data("SKIPPING the integration tests: \(failure)\n".utf8))
            return .failure(failure)
        }
        return .success(())
    }()

    /// Why the server is unavailable.
    public struct SetupFailure: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { "the local authorization server could not be set up: \(reason)" }
    }

    /// The comment shown for integration tests skipped by ``isAvailable``.
    public static let skipComment: Comment =
        "needs the local authorization server; Tests/AuthorizationServer/setup.sh failed (see the SKIPPING line above)"

    /// Whether integration tests can run (for `.enabled(if:)`).
    public static var isAvailable: Bool { (try? setup.get()) != nil }

    /// The issuer URL, `http://127.0.0.1:PORT`.
    public let url: URL
    /// How long the server took from launch to accepting connections.
    public let startupTime: Duration
    private let process: Locked<Process?>
    /// The server's standard input, never written: closing it (or this process dying) stops it.
    private let input: Pipe

    /// Starts a server with `settings` and waits until it accepts connections.
    ///
    /// - Parameter settings: Lifetimes, rotation, reuse protection, grace period.
    /// - Throws: ``SetupFailure`` when it cannot be set up or does not start.
    public init(_ settings: Settings = Settings()) throws {
        try Self.setup.get()
        let process = Process()
        process.executableURL = Self.repository.appendingPathComponent(".venv/bin/python")
        process.arguments = [
            Self.repository.appendingPathComponent("Tests/AuthorizationServer/serve.py").path,
            "--state", Self.stateDirectory.path,
            "--access-token-lifetime", "\(settings.accessTokenLifetime)",
            "--rotate-refresh-tokens", settings.rotateRefreshTokens ? "yes" : "no",
            "--reuse-protection", settings.reuseProtection ? "yes" : "no",
            "--grace-period", "\(settings.gracePeriod)",
            "--api-audiences", settings.apiAudiences.joined(separator: " "),
            "--device-id-token", settings.deviceIDToken ? "yes" : "no",
            // Safety nets: the server also exits when this test process dies.
            "--parent-pid", "\(ProcessInfo.processInfo.processIdentifier)", "--exit-on-stdin-eof",
        ]
        let input = Pipe()
        process.standardInput = input
        let output = Pipe()
        process.standardOutput = output
        let log = Self.stateDirectory.appendingPathComponent("server-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        let started = ContinuousClock.now
        try process.run()
        guard let url = TestServerProcess.url(of: process, output: output) else {
            process.terminate()
            throw SetupFailure(reason: "the server did not start (log: \(log.path))")
        }
        self.url = url
        startupTime = ContinuousClock.now - started
        self.process = Locked(process)
        self.input = input
    }

    /// Stops the server by its own PID and waits for it to exit. Safe to call twice.
    public func stop() {
        TestServerProcess.stop(process)
    }

    deinit {
        stop()
    }

    // MARK: Test hooks

    /// Token requests counted by the server, by grant type, since the last ``resetStats()``.
    public func tokenRequests() async throws -> [String: Int] {
        let json = try await request("GET", "/test/stats")
        return (json["token_requests"] as? [String: Int]) ?? [:]
    }

    /// Token requests of one grant type.
    ///
    /// - Parameter grant: `refresh_token`, `password`, ...
    /// - Returns: The count.
    public func tokenRequests(_ grant: String) async throws -> Int {
        try await tokenRequests()[grant] ?? 0
    }

    /// Refresh requests the server answered with an access token for `audience` (another API's,
    /// with ``Settings/apiAudiences``), since the last ``resetStats()``.
    ///
    /// - Parameter audience: The API's identifier.
    /// - Returns: The count.
    public func tokenRequests(forAudience audience: String) async throws -> Int {
        let json = try await request("GET", "/test/stats")
        return (json["token_audiences"] as? [String: Int])?[audience] ?? 0
    }

    /// Requests of any method to `path` (such as `/revoke_token/`).
    ///
    /// - Parameter path: The endpoint path.
    /// - Returns: The count.
    public func requests(to path: String) async throws -> Int {
        let json = try await request("GET", "/test/stats")
        return (json["endpoint_requests"] as? [String: Int])?[path] ?? 0
    }

    /// Zeroes the counters.
    public func resetStats() async throws {
        _ = try await request("POST", "/test/reset")
    }

    /// Arms a fault for the next `count` requests to `path`.
    ///
    /// - Parameters:
    ///   - mode: `status500`, `slow`, `truncated`, `hold` or `none`.
    ///   - path: The endpoint path, such as `/token/`.
    ///   - seconds: For `slow`, how long to wait; for `hold`, the longest a request stays parked.
    ///   - count: How many requests it applies to.
    ///   - process: Whether the server answers first (its effects committed) and the fault then
    ///     applies to the answer.
    public func armFault(
        _ mode: String, path: String = "/token/", seconds: Double = 0, count: Int = 1, process: Bool = false
    ) async throws {
        _ = try await request(
            "POST", "/test/fault",
            ["path": path, "mode": mode, "seconds": seconds, "count": count, "process": process ? "yes" : "no"])
    }

    /// Waits until `count` requests are parked by a `hold` fault (a few seconds at most).
    ///
    /// - Parameter count: How many.
    /// - Returns: How many are parked.
    public func awaitHeld(count: Int = 1) async throws -> Int {
        try await request("POST", "/test/held", ["count": count, "timeout": 8])["held"] as? Int ?? 0
    }

    /// Lets every request parked by a `hold` fault go on.
    public func releaseHeld() async throws {
        _ = try await request("POST", "/test/release")
    }

    /// Approves a pending device authorization for the test user, as the user would.
    ///
    /// - Parameter userCode: The code the user would type.
    public func approveDevice(userCode: String) async throws {
        _ = try await request("POST", "/test/approve-device", ["user_code": userCode])
    }

    /// Denies a pending device authorization, as the user would.
    ///
    /// - Parameter userCode: The code the user would type.
    public func denyDevice(userCode: String) async throws {
        _ = try await request("POST", "/test/deny-device", ["user_code": userCode])
    }

    // MARK: DPoP

    /// The resource that takes only DPoP-bound access tokens with a valid proof of their key.
    public var dpopResourceURL: URL { url.appendingPathComponent("test/dpop-resource") }

    /// What the server counted about DPoP since the last ``resetStats()``: `proofs_accepted`,
    /// `nonce_challenges`, `tokens_bound`, `resource_requests`, and `rejections` by reason.
    public func dpopStats() async throws -> [String: Any] {
        (try await request("GET", "/test/stats")["dpop"] as? [String: Any]) ?? [:]
    }

    /// DPoP proofs the server refused for `reason` (such as `replayed jti`, `wrong key`).
    ///
    /// - Parameter reason: The reason the server records.
    /// - Returns: The count.
    public func dpopRejections(_ reason: String) async throws -> Int {
        (try await dpopStats()["rejections"] as? [String: Int])?[reason] ?? 0
    }

    /// Sets the server's DPoP support and nonce enforcement.
    ///
    /// - Parameters:
    ///   - enabled: Whether DPoP is supported at all; off, proofs are ignored and tokens are Bearer.
    ///   - requireNonce: Whether every proof must carry the server's current nonce.
    ///   - refuseNonce: How many of the next proofs are challenged anyway, each with a new nonce.
    public func setDPoP(enabled: Bool? = nil, requireNonce: Bool? = nil, refuseNonce: Int? = nil) async throws {
        var body: [String: Any] = [:]
        if let enabled { body["enabled"] = enabled }
        if let requireNonce { body["require_nonce"] = requireNonce }
        if let refuseNonce { body["refuse_nonce"] = refuseNonce }
        _ = try await request("POST", "/test/dpop", body)
    }

    private func request(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
        var request = URLRequest(url: url.appendingPathComponent(path), timeoutInterval: 10)
        request.httpMethod = method
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw SetupFailure(reason: "\(method) \(path) failed")
        }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }
}
