import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension OAuth2Client {
    /// Sets what a request needs to be authorized by `token`: `Authorization: Bearer <token>` for a
    /// Bearer token; for a DPoP-bound one `Authorization: DPoP <token>` and a `DPoP` proof of its
    /// key for this request's method and URL (RFC 9449 §7.1), with the access token's hash and the
    /// server's latest nonce.
    ///
    /// A proof is for one request: authorize again before sending again (a server refuses a proof
    /// it has seen). ``send(_:authorizedWith:)`` also retries a nonce challenge.
    ///
    /// - Parameters:
    ///   - request: The request to authorize.
    ///   - token: The token.
    /// - Throws: ``OAuth2Error/dpopKeyMissing`` for a DPoP-bound token without its key (the request
    ///   is left as it was), ``OAuth2Error/insecureTransport(_:)`` for a request without a URL.
    public func authorize(_ request: inout URLRequest, with token: Token) throws {
        guard let key = try token.requiredDPoPKey() else {
            request.setValue("\(token.tokenType) \(token.accessToken)", forHTTPHeaderField: "Authorization")
            return
        }
        guard let url = request.url else { throw OAuth2Error.insecureTransport("a request without a URL") }
        let options = proofOptions
        let proof = key.proof(
            method: request.httpMethod ?? "GET", url: url, accessToken: token.accessToken,
            nonce: options.nonces.nonce(for: url), issuedAt: options.clock())
        request.setValue("\(token.tokenType) \(token.accessToken)", forHTTPHeaderField: "Authorization")
        request.setValue(proof, forHTTPHeaderField: "DPoP")
    }

    /// Sends a request to a resource server authorized by `token` (``authorize(_:with:)``) through
    /// ``httpClient`` and gives the answer whatever its status. When a DPoP-bound token's proof is
    /// answered with a nonce challenge (401 with `WWW-Authenticate: DPoP error="use_dpop_nonce"` and
    /// a `DPoP-Nonce`), the request is sent once more with a new proof carrying that nonce, which
    /// is remembered for later proofs to that server.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - token: The token.
    /// - Returns: The body and response.
    /// - Throws: ``OAuth2Error/dpopNonceRefused(statusCode:)`` when the retry is challenged again,
    ///   ``OAuth2Error/dpopKeyMissing``, ``OAuth2Error/insecureTransport(_:)`` for a URL the
    ///   transport policy does not permit, ``OAuth2Error/network(_:)``.
    public func send(_ request: URLRequest, authorizedWith token: Token) async throws -> (Data, HTTPURLResponse) {
        var request = request
        try authorize(&request, with: token)
        guard let key = token.dpopKey, token.isDPoPBound else { return try await transmit(request) }
        return try await sendWithProof(request, key: key, accessToken: token.accessToken)
    }

    /// GETs a resource authorized by `token`; a non-2xx answer is an error, as for every request of
    /// the client's own.
    func get(_ url: URL, authorizedWith token: Token) async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: url, timeoutInterval: requestTimeout)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        return try checked(await send(request, authorizedWith: token), of: request)
    }

    /// The options proofs are made with: the client's, or the defaults for a DPoP-bound token of a
    /// client that asks for Bearer tokens.
    var proofOptions: DPoPOptions { dpop ?? DPoPOptions() }

    /// Sends `request` with a new proof of `key`, remembering the nonce the server gives; retries
    /// once with a new proof when the server answers with a nonce challenge (`use_dpop_nonce`: a
    /// 400 error body from a token endpoint, a 401 `WWW-Authenticate` challenge from a resource
    /// server, RFC 9449 §8, §9). Gives the answer whatever its status otherwise.
    func sendWithProof(_ request: URLRequest, key: DPoPKey, accessToken: String?) async throws -> (
        Data, HTTPURLResponse
    ) {
        guard let url = request.url else { throw OAuth2Error.insecureTransport("a request without a URL") }
        let options = proofOptions
        var request = request
        var retried = false
        while true {
            request.setValue(
                key.proof(
                    method: request.httpMethod ?? "GET", url: url, accessToken: accessToken,
                    nonce: options.nonces.nonce(for: url), issuedAt: options.clock()),
                forHTTPHeaderField: "DPoP")
            let response = try await transmit(request)
            let nonce = response.1.value(forHTTPHeaderField: "DPoP-Nonce").flatMap(Self.validNonce)
            if let nonce { options.nonces.remember(nonce, for: url) }
            guard Self.isNonceChallenge(response) else { return response }
            guard !retried, nonce != nil else { throw OAuth2Error.dpopNonceRefused(statusCode: response.1.statusCode) }
            retried = true
        }
    }

    /// Whether an answer asks for a proof with a new nonce.
    private static func isNonceChallenge(_ response: (Data, HTTPURLResponse)) -> Bool {
        let (data, http) = response
        guard http.statusCode == 400 || http.statusCode == 401 else { return false }
        if case .object(let json)? = try? JSONDecoder().decode(JSONValue.self, from: data),
            json["error"]?.stringValue == "use_dpop_nonce"
        {
            return true
        }
        return http.value(forHTTPHeaderField: "WWW-Authenticate").flatMap(challengeError) == "use_dpop_nonce"
    }

    /// A `DPoP-Nonce` value as RFC 9449 §8.1 allows it (`1*NQCHAR`), else `nil`.
    private static func validNonce(_ value: String) -> String? {
        let allowed = !value.isEmpty && value.utf8.allSatisfy { (0x21...0x7E).contains($0) && $0 != 0x22 && $0 != 0x5C }
        return allowed ? value : nil
    }
}
