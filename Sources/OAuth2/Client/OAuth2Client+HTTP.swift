import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension OAuth2Client {
    /// POSTs a form, with client authentication, and with a DPoP proof of `proofKey` when given
    /// (retried once with the server's nonce when it asks for one).
    func post(_ url: URL, form: [(String, String)], proofKey: DPoPKey? = nil) async throws -> (Data, HTTPURLResponse) {
        var fields = form
        var request = URLRequest(url: url, timeoutInterval: requestTimeout)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        switch (clientSecret, clientAuthentication) {
        case (nil, _):
            fields.append(("client_id", clientID))
        case (let secret?, .basic):
            let credentials = "\(Self.formEncode(clientID)):\(Self.formEncode(secret))"
            request.setValue(
                "Basic \(Data(credentials.utf8).base64EncodedString())", forHTTPHeaderField: "Authorization")
        case (let secret?, .post):
            fields += [("client_id", clientID), ("client_secret", secret)]
        }
        request.httpBody = Data(
            fields.map { "\(Self.formEncode($0))=\(Self.formEncode($1))" }.joined(separator: "&").utf8)
        guard let proofKey else { return try await send(request) }
        return try checked(await sendWithProof(request, key: proofKey, accessToken: nil), of: request)
    }

    /// GETs a document that needs no authorization (discovery, keys).
    func get(_ url: URL) async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: url, timeoutInterval: requestTimeout)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        return try await send(request)
    }

    /// Sends a request through ``httpClient``; transport failures become ``OAuth2Error/network(_:)``
    /// and non-2xx answers become ``OAuth2Error/server(error:description:statusCode:)`` (an
    /// RFC 6749 §5.2 body, or a `WWW-Authenticate` error) or ``OAuth2Error/unexpectedStatus(_:)``.
    /// A URL the transport policy does not permit is refused before the request reaches the client
    /// (``OAuth2Error/insecureTransport(_:)``), whatever client it is. A redirect is the client's:
    /// the default one follows it only within the origin, and a 3xx answer that reaches this point
    /// (a client that does not follow redirects) is ``OAuth2Error/redirectRefused(_:)``.
    private func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        try checked(await transmit(request), of: request)
    }

    /// Sends a request through ``httpClient`` and gives its answer whatever its status: the
    /// transport policy is checked first, transport failures become ``OAuth2Error/network(_:)``.
    func transmit(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        guard let url = request.url else { throw OAuth2Error.insecureTransport("a request without a URL") }
        try transportPolicy.check(url, as: "the URL")
        do {
            let client = httpClient
            return try await withDeadline(seconds: request.timeoutInterval) {
                try await client.send(request)
            }
        } catch let error as OAuth2Error {
            throw error
        } catch {
            throw OAuth2Error.network(Self.describe(error))
        }
    }

    /// The answer to `request` if its status is 2xx, else the error ``send(_:)`` describes.
    func checked(_ response: (Data, HTTPURLResponse), of request: URLRequest) throws -> (Data, HTTPURLResponse) {
        let (data, http) = response
        let url = request.url ?? issuer
        guard (200..<300).contains(http.statusCode) else {
            if case .object(let json)? = try? JSONDecoder().decode(JSONValue.self, from: data),
                let error = json["error"]?.stringValue
            {
                throw OAuth2Error.server(
                    error: error, description: json["error_description"]?.stringValue, statusCode: http.statusCode)
            }
            if let challenge = http.value(forHTTPHeaderField: "WWW-Authenticate"),
                let error = Self.challengeError(challenge)
            {
                throw OAuth2Error.server(error: error, description: nil, statusCode: http.statusCode)
            }
            if (300..<400).contains(http.statusCode), let location = http.value(forHTTPHeaderField: "Location"),
                let target = URL(string: location, relativeTo: url)?.absoluteURL
            {
                let origin = TransportPolicy.origin(of: target)
                throw OAuth2Error.redirectRefused(
                    TransportPolicy.sameOrigin(url, target)
                        ? "the same origin (\(origin))" : "another origin (\(origin))")
            }
            throw OAuth2Error.unexpectedStatus(http.statusCode)
        }
        return (data, http)
    }

    /// Runs `body`, failing with a timeout once `seconds` pass: a client may not enforce
    /// `timeoutInterval` (URLSession on Linux does not always, against a server that accepted the
    /// connection and stalls).
    private func withDeadline<Result: Sendable>(
        seconds: TimeInterval, _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try await withThrowingTaskGroup(of: Result.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                throw OAuth2Error.network("the request timed out")
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    /// The body as a JSON object, or ``OAuth2Error/invalidResponse(_:)``.
    func jsonObject(from response: (Data, HTTPURLResponse)) throws -> [String: JSONValue] {
        guard case .object(let json)? = try? JSONDecoder().decode(JSONValue.self, from: response.0) else {
            throw OAuth2Error.invalidResponse(
                "the response from \(response.1.url?.path ?? "the server") is not a JSON object")
        }
        return json
    }

    /// `application/x-www-form-urlencoded` for one name or value: every byte but the unreserved
    /// characters percent-encoded.
    static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// The `error` of a Bearer challenge (RFC 6750 §3).
    static func challengeError(_ challenge: String) -> String? {
        guard let range = challenge.range(of: "error=\"") else { return nil }
        let rest = challenge[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    /// What ``OAuth2Error/network(_:)`` says about an error from the HTTP client: a `URLError`'s
    /// description, and for any other error only its type, since a client of the caller's own may
    /// put a URL with its query, or a body, into its errors.
    private static func describe(_ error: any Error) -> String {
        if error is CancellationError { return "the request was cancelled" }
        guard let error = error as? URLError else { return "the HTTP client failed (\(type(of: error)))" }
        return switch error.code {
        case .timedOut: "the request timed out"
        case .cannotConnectToHost, .networkConnectionLost, .cannotFindHost:
            "cannot connect to the server (\(error.failingURL?.host ?? "?"))"
        default: error.localizedDescription
        }
    }
}
