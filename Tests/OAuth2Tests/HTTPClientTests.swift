import Foundation
import Locking
import OAuth2
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every request of an `OAuth2Client` goes through the `HTTPClient` it was given: a recorder in
/// front of the default URLSession client, against the real local authorization server.
@Suite(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
struct HTTPClientTests {
    static let scopes = ["openid", "profile", "email", "read"]

    /// The GET of the two discovery documents, in either order (they are fetched concurrently).
    static func discoveryLines(_ recorder: RecordingHTTPClient) -> Set<String> {
        Set(recorder.lines.prefix(2))
    }

    static let discovery: Set = [
        "GET /.well-known/openid-configuration", "GET /.well-known/oauth-authorization-server",
    ]

    @Test func discoveryTokenRefreshIntrospectionUserinfoAndRevocationGoThroughTheClient() async throws {
        let server = try AuthorizationServer()
        let recorder = RecordingHTTPClient(recording: server.url)
        let (id, secret) = AuthorizationServer.Client.confidentialPassword
        let client = OAuth2Client(
            issuer: server.url, clientID: id, clientSecret: secret, scopes: Self.scopes, httpClient: recorder)
        try await server.resetStats()

        let configuration = try await client.openIDConfiguration()
        #expect(configuration.issuer == server.url)
        #expect(recorder.requests.count == 2)
        #expect(Self.discoveryLines(recorder) == Self.discovery)
        #expect(try await server.requests(to: "/.well-known/openid-configuration") == 1)
        #expect(try await server.requests(to: "/.well-known/oauth-authorization-server") == 1)

        let token = try await client.password(
            username: AuthorizationServer.username, password: AuthorizationServer.password)
        let refreshed = try await client.refresh(token)
        #expect(refreshed.accessToken != token.accessToken)
        #expect(try await client.introspect(refreshed, type: .accessToken).active)
        #expect(try await client.userInfo(refreshed).preferredUsername == AuthorizationServer.username)
        try await client.revoke(refreshed, type: .accessToken)

        let expected: [RecordingHTTPClient.Request] = try [
            ("POST", configuration.tokenEndpoint), ("POST", configuration.tokenEndpoint),
            ("POST", configuration.introspectionEndpoint), ("GET", configuration.userinfoEndpoint),
            ("POST", configuration.revocationEndpoint),
        ].map { RecordingHTTPClient.Request(method: $0, url: try #require($1)) }
        // The issuer's key set, fetched to validate the ID token unless another test's client of the
        // same issuer already cached it, goes through the client as well.
        let keySet = recorder.requests.filter { $0.path.hasSuffix("/jwks.json") }.count
        #expect(keySet <= 1)
        #expect(Array(recorder.requests.dropFirst(2)).filter { !$0.path.hasSuffix("/jwks.json") } == expected)
        // And the revocation took effect there.
        #expect(try await !client.introspect(refreshed, type: .accessToken).active)
        #expect(recorder.requests.count == 8 + keySet)
        // Each one reached the server, and nothing else did.
        #expect(try await server.tokenRequests() == ["password": 1, "refresh_token": 1])
        for (path, count) in recorder.countsByPath {
            #expect(try await server.requests(to: path) == count, "\(path)")
        }
    }

    @Test func theDeviceGrantGoesThroughTheClient() async throws {
        let server = try AuthorizationServer()
        let recorder = RecordingHTTPClient(recording: server.url)
        let client = OAuth2Client(
            issuer: server.url, clientID: AuthorizationServer.Client.device.0, scopes: ["openid"], httpClient: recorder)
        let authorization = try await client.deviceAuthorization()
        try await server.approveDevice(userCode: authorization.userCode)
        let token = try await client.pollForToken(authorization) { _ in }
        #expect(token.refreshToken != nil)
        let configuration = try await client.openIDConfiguration()
        #expect(Self.discoveryLines(recorder) == Self.discovery)
        #expect(
            Array(recorder.requests.dropFirst(2)) == [
                .init(method: "POST", url: try #require(configuration.deviceAuthorizationEndpoint)),
                .init(method: "POST", url: try #require(configuration.tokenEndpoint)),
            ])
        #expect(try await server.tokenRequests("urn:ietf:params:oauth:grant-type:device_code") == 1)
    }

    /// The default client on its own, without an `OAuth2Client` around it: it gives up once the
    /// request's `timeoutInterval` passes, and stops when its task is cancelled.
    @Test func theDefaultClientTimesOutAndStopsWhenCancelled() async throws {
        let server = try AuthorizationServer()
        let client = URLSessionHTTPClient()
        let path = "/.well-known/openid-configuration"
        let url = server.url.appendingPathComponent(path)
        let (data, response) = try await client.send(URLRequest(url: url, timeoutInterval: 10))
        #expect(response.statusCode == 200)
        #expect(!data.isEmpty)

        // The server answers after 20 s, so a request that did not time out would succeed.
        try await server.armFault("slow", path: path, seconds: 20)
        let timeout = await #expect(throws: URLError.self) {
            try await client.send(URLRequest(url: url, timeoutInterval: 1))
        }
        #expect(timeout?.code == .timedOut)

        // Parked at the server until released (30 s at most): a request whose cancellation were
        // ignored would end with the server's answer, not with `cancelled`.
        try await server.armFault("hold", path: path, seconds: 30)
        let task = Task { try await client.send(URLRequest(url: url, timeoutInterval: 60)) }
        #expect(try await server.awaitHeld() == 1)
        task.cancel()
        let error = await #expect(throws: URLError.self) { try await task.value }
        #expect(error?.code == .cancelled)
        try await server.releaseHeld()
        // A plain-http URL on a network is refused by the default client too, before it is sent.
        await #expect(throws: OAuth2Error.insecureTransport("the URL (http://example.com)")) {
            try await client.send(URLRequest(url: URL(string: "http://example.com/token")!))
        }
    }

    /// An error of the client's own is a network error that names only its type: its description
    /// (which here holds a secret) stays out. Nothing reached the server.
    @Test func aClientThatThrowsIsANetworkErrorWithoutItsMessage() async throws {
        let server = try AuthorizationServer()
        let failing = RecordingHTTPClient(recording: server.url, failure: Leaky())
        let (id, secret) = AuthorizationServer.Client.confidentialPassword
        let client = OAuth2Client(issuer: server.url, clientID: id, clientSecret: secret, httpClient: failing)
        try await server.resetStats()
        do {
            _ = try await client.password(
                username: AuthorizationServer.username, password: AuthorizationServer.password)
            Issue.record("a failing client gave a token")
        } catch let error as OAuth2Error {
            #expect(error == .network("the HTTP client failed (Leaky)"))
            #expect(!error.localizedDescription.contains(Leaky.secret))
            #expect(!"\(error)".contains(Leaky.secret))
        }
        #expect(Set(failing.lines) == Self.discovery)
        #expect(try await server.requests(to: "/.well-known/openid-configuration") == 0)
    }
}

/// What an `OAuth2Client` makes of a client of one's own that never touches the network, and that
/// the transport policy holds before such a client is asked.
@Suite struct HTTPClientContractTests {
    /// URLError, cancellation and OAuth2Error from a client of one's own, a hanging client, a
    /// non-JSON answer and an unfollowed redirect: each the same typed error the URLSession
    /// client gives.
    @Test func whatACustomClientGivesBecomesTheUsualErrors() async throws {
        let issuer = URL(string: "https://id.example.com")!
        let thrown: [(any Error, OAuth2Error)] = [
            (URLError(.timedOut), .network("the request timed out")),
            (
                URLError(.cannotConnectToHost, userInfo: [NSURLErrorFailingURLErrorKey: issuer]),
                .network("cannot connect to the server (id.example.com)")
            ),
            (CancellationError(), .network("the request was cancelled")),
            (OAuth2Error.invalidResponse("as thrown"), .invalidResponse("as thrown")),
        ]
        for (error, expected) in thrown {
            let client = OAuth2Client(
                issuer: issuer, clientID: "c", httpClient: ScriptedHTTPClient { _ in throw error })
            await #expect(throws: expected) { try await client.openIDConfiguration() }
        }

        let hanging = OAuth2Client(
            issuer: issuer, clientID: "c",
            httpClient: ScriptedHTTPClient { _ in
                try await Task.sleep(for: .seconds(600))
                throw CancellationError()
            }, requestTimeout: 0.3)
        // The client sleeps for 600 s, so only the deadline can end this with a timeout.
        await #expect(throws: OAuth2Error.network("the request timed out")) { try await hanging.openIDConfiguration() }

        let notJSON = OAuth2Client(
            issuer: issuer, clientID: "c", httpClient: ScriptedHTTPClient { try ScriptedHTTPClient.answer($0, 200) })
        await #expect(
            throws: OAuth2Error.invalidResponse(
                "the response from /.well-known/openid-configuration is not a JSON object")
        ) { try await notJSON.openIDConfiguration() }

        for (location, detail) in [
            ("https://elsewhere.example.com/x", "another origin (https://elsewhere.example.com)"),
            ("/.well-known/moved", "the same origin (https://id.example.com)"),
        ] {
            let redirected = OAuth2Client(
                issuer: issuer, clientID: "c",
                httpClient: ScriptedHTTPClient {
                    try ScriptedHTTPClient.answer($0, 302, headers: ["Location": location])
                })
            await #expect(throws: OAuth2Error.redirectRefused(detail)) { try await redirected.openIDConfiguration() }
        }
    }

    /// The transport policy is checked before a request reaches the client: a plain-http issuer on a
    /// network fails every call and the client is never asked.
    @Test func aPlainHTTPIssuerNeverReachesACustomClient() async throws {
        let issuer = URL(string: "http://example.com")!
        let recorder = RecordingHTTPClient(recording: issuer)
        let client = OAuth2Client(
            issuer: issuer, clientID: "c", clientSecret: "client-secret-value", httpClient: recorder)
        let token = Token(
            id: "t", tokenType: "Bearer", accessToken: "at", refreshToken: "rt", idToken: nil, deviceSecret: nil,
            scope: nil, issuedAt: Date(), expiresIn: 60, context: Token.Context(issuer: issuer, clientID: "c"))
        let refused = OAuth2Error.insecureTransport("the issuer (http://example.com)")
        await #expect(throws: refused) { try await client.openIDConfiguration() }
        await #expect(throws: refused) { try await client.password(username: "u", password: "p") }
        await #expect(throws: refused) { try await client.refresh(token) }
        await #expect(throws: refused) { try await client.revoke(token, type: .refreshToken) }
        await #expect(throws: refused) { try await client.introspect(token, type: .accessToken) }
        await #expect(throws: refused) { try await client.userInfo(token) }
        await #expect(throws: refused) { try await client.deviceAuthorization() }
        #expect(recorder.requests.isEmpty)
    }

    /// An https issuer whose discovery document names a plain-http token endpoint: the client is
    /// asked for the two documents, never for the token.
    @Test func aPlainHTTPEndpointFromDiscoveryNeverReachesACustomClient() async throws {
        let issuer = "https://id.example.com"
        let asked = Locked<[String]>([])
        let client = OAuth2Client(
            issuer: URL(string: issuer)!, clientID: "c", clientSecret: "client-secret-value",
            httpClient: ScriptedHTTPClient { request in
                asked.withLock { $0.append("\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "")") }
                let document = ["issuer": issuer, "token_endpoint": "http://example.com/token"]
                return try ScriptedHTTPClient.answer(
                    request, 200, body: JSONSerialization.data(withJSONObject: document))
            })
        await #expect(throws: OAuth2Error.insecureTransport("token_endpoint (http://example.com)")) {
            try await client.clientCredentials()
        }
        #expect(asked.value.allSatisfy { $0.hasPrefix("GET \(issuer)/.well-known/") })
        #expect(asked.value.count == 2)
    }
}

/// An error whose description holds a secret, as a careless client's might.
private struct Leaky: Error, CustomStringConvertible, LocalizedError {
    static let secret = "secret-from-the-client-error"
    var description: String { Self.secret }
    var errorDescription: String? { Self.secret }
}

/// A client that answers every request with `body`, never touching the network.
private struct ScriptedHTTPClient: HTTPClient {
    let body: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)

    init(_ body: @escaping @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)) {
        self.body = body
    }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        try await body(request)
    }

    /// An answer to `request` with `status`.
    static func answer(
        _ request: URLRequest, _ status: Int, headers: [String: String] = [:], body: Data = Data("not json".utf8)
    ) throws -> (Data, HTTPURLResponse) {
        let url = try #require(request.url)
        let response = try #require(
            HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers))
        return (body, response)
    }
}
