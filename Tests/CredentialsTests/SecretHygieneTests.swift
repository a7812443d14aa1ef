import Foundation
import TestSupport
import Testing
import TokenVault
import VaultStorage

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Distinctive secrets planted in every value and error below, and the ways a program can print a
/// value: none may ever show a secret.
enum PlantedSecrets {
    static let accessToken = "AT-hygiene-9c1e5f7a"
    static let refreshToken = "RT-hygiene-4b8d2e6c"
    static let deviceSecret = "DS-hygiene-1a3f5b7d"
    static let idTokenSignature = "SIGhygiene0e2c4a68"
    static let clientSecret = "CS-hygiene-7d9b1f3e"
    static let passphrase = "PP-hygiene-5e7c9a1b"
    static let storedValue = "SV-hygiene-2f4d6b8a"
    static let pkceVerifier = "PKCEhygiene3a5c7e9b1d3f5a7c9e1b3d5f7a9c1e3b5"
    /// Key bytes: a pattern no text would contain, checked as hex, base64 and raw bytes.
    static let keyBytes: [UInt8] = (0..<32).map { UInt8(truncatingIfNeeded: 0xA0 + $0 * 7) }

    static var strings: [String] {
        [
            accessToken, refreshToken, deviceSecret, idTokenSignature, clientSecret, passphrase, storedValue,
            pkceVerifier,
        ]
    }

    /// Every form a secret could take in text.
    static var needles: [String] {
        let keyData = Data(keyBytes)
        return strings + [
            keyBytes.map { String(format: "%02x", $0) }.joined(), keyData.base64EncodedString(),
            keyBytes.map { String($0) }.joined(separator: ", "), String(decoding: keyBytes, as: UTF8.self),
        ]
    }

    /// A token response carrying every planted token.
    static var tokenResponse: Data {
        let idToken = TestTokens.jwt(["sub": "hygiene@example.com", "iss": TestTokens.issuer.absoluteString])
        let signed = idToken.split(separator: ".").prefix(2).joined(separator: ".") + "." + idTokenSignature
        return try! JSONSerialization.data(withJSONObject: [
            "access_token": accessToken, "token_type": "Bearer", "expires_in": 3600, "refresh_token": refreshToken,
            "device_secret": deviceSecret, "id_token": signed, "scope": "openid",
        ])
    }

    static var context: Token.Context {
        Token.Context(issuer: TestTokens.issuer, clientID: "hygiene-client", clientSecret: clientSecret)
    }

    /// `description`, `String(describing:)`, `String(reflecting:)` and `dump()` of `value`, and
    /// for errors also `localizedDescription` and the `LocalizedError` texts.
    static func renderings(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        var texts = ["\(value)", String(describing: value), String(reflecting: value), dumped]
        if let error = value as? any Error {
            texts.append(error.localizedDescription)
            if let localized = error as? any LocalizedError {
                texts += [
                    localized.errorDescription, localized.failureReason, localized.recoverySuggestion,
                    localized.helpAnchor,
                ].compactMap { $0 }
            }
        }
        return texts
    }

    /// Records an issue for every planted secret found in any rendering of `value`.
    static func expectNone(
        in value: Any, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for text in renderings(value) {
            for needle in needles where text.contains(needle) {
                Issue.record(
                    "\(what) shows a secret (\(needle.prefix(12))...): \(text)", sourceLocation: sourceLocation)
            }
        }
    }
}

extension CredentialTests {
    /// Every value type that carries a token, passphrase or key, printed every way Swift can.
    @Test func noSecretInAnyRenderingOfAnyValueThatCarriesOne() throws {
        typealias S = PlantedSecrets
        let token = try Token(response: S.tokenResponse, context: S.context)
        #expect(token.accessToken == S.accessToken && token.idToken?.rawValue.hasSuffix(S.idTokenSignature) == true)
        let credential = try Credential.store(token, tags: ["team": "core"])
        let keyFile = directory.file("hygiene.key")
        try Data(S.keyBytes + S.keyBytes).write(to: keyFile)
        try setFileMode(0o600, keyFile)
        let passphrase = Passphrase(S.passphrase)
        let vault = try Vault.inMemory(unlock: .passphrase(passphrase), keyDerivation: TestVaults.fastKeyDerivation)
        try vault.set(S.storedValue, for: SecretKey<String>("stored"))
        let store = SecretStore(vault: vault, service: "hygiene")
        try store.set(S.storedValue, forKey: "item")
        let client = OAuth2Client(issuer: TestTokens.issuer, clientID: "c", clientSecret: S.clientSecret)

        let values: [(String, Any)] = [
            ("Token", token), ("[Token]", [token]), ("Token?", Optional(token) as Any),
            ("Token.Context", token.context),
            ("JWT", token.idToken!), ("Token.Metadata", credential.metadata), ("Credential", credential),
            ("[Credential]", [credential]), ("Credential.oauth2", credential.oauth2), ("OAuth2Client", client),
            ("PKCE", PKCE(verifier: S.pkceVerifier)), ("Passphrase", passphrase),
            ("Passphrase.secureBytes", passphrase.secureBytes), ("SecureBytes", SecureBytes(copying: S.keyBytes)),
            ("SymmetricKey", SymmetricKey(copying: S.keyBytes)),
            ("VaultUnlock.passphrase", VaultUnlock.passphrase(passphrase)),
            ("VaultUnlock.keyFile", VaultUnlock.keyFile(keyFile)),
            ("VaultUnlock.composite", VaultUnlock.composite(passphrase: passphrase, keyFile: keyFile)),
            ("AuthenticationProof.passphrase", AuthenticationProof.passphrase(passphrase)),
            ("AuthenticationProof.keyFile", AuthenticationProof.keyFile(keyFile)),
            ("Vault", vault), ("SecretStore", store), ("Credential.tokenStorage", Credential.tokenStorage),
            ("VaultTokenStorage", try VaultTokenStorage(vault: vault)),
            ("StoredToken", StoredToken(token: token, metadata: credential.metadata, version: 1)),
        ]
        for (what, value) in values { S.expectNone(in: value, what) }
        // The check itself can fail: the same renderings of the raw strings do show them.
        #expect(S.renderings(token.accessToken).allSatisfy { $0.contains(S.accessToken) })
        #expect(S.renderings(["token": S.accessToken]).allSatisfy { $0.contains(S.accessToken) })
    }

    /// Every case of every layer's error, and errors raised by real operations on planted secrets.
    @Test func noSecretInAnyErrorOfAnyLayer() async throws {
        typealias S = PlantedSecrets
        var errors: [(String, any Error)] = []
        func capture(_ what: String, _ body: () throws -> Void) {
            do {
                try body()
                Issue.record("\(what) did not fail")
            } catch {
                errors.append((what, error))
            }
        }
        func capture(_ what: String, _ body: () async throws -> Void) async {
            do {
                try await body()
                Issue.record("\(what) did not fail")
            } catch {
                errors.append((what, error))
            }
        }

        // Errors raised while handling secrets.
        let directory = TemporaryDirectory()
        let (vault, url) = try TestVaults.onDisk(in: directory)
        try vault.set(S.storedValue, for: SecretKey<String>("stored"))
        capture("wrong passphrase") { _ = try Vault.open(at: url, unlock: .passphrase(Passphrase(S.passphrase))) }
        capture("empty passphrase") { _ = try Vault.create(at: directory.file("n.db"), unlock: .passphrase("")) }
        let shortKey = directory.file("short.key")
        try Data(S.keyBytes.prefix(31)).write(to: shortKey)
        try setFileMode(0o600, shortKey)
        capture("short key file") { _ = try Vault.open(at: url, unlock: .keyFile(shortKey)) }
        capture("stored value read as another type") { _ = try vault.get(SecretKey<Int>("stored")) }
        let store = SecretStore(vault: vault, service: "hygiene")
        try store.set(Data([0xff, 0xfe] + Array(S.storedValue.utf8)), forKey: "binary")
        capture("binary item read as text") { _ = try store.string(forKey: "binary") }
        let record = try #require(try RawVaultFile(url).records().first)
        try RawVaultFile(url).setSealed(Array(record.sealed.dropLast()), forRecord: record.id)
        capture("truncated record") { _ = try vault.verify() }
        capture("token response without token_type") {
            _ = try Token(
                response: Data(#"{"access_token":"\#(S.accessToken)","expires_in":"\#(S.refreshToken)"}"#.utf8),
                context: S.context)
        }
        capture("expires_in that is a token") {
            _ = try Token(
                response: Data(
                    #"{"access_token":"\#(S.accessToken)","token_type":"Bearer","expires_in":"\#(S.refreshToken)"}"#
                        .utf8), context: S.context)
        }
        capture("malformed ID token") {
            _ = try Token(
                response: Data(
                    #"{"access_token":"a","token_type":"Bearer","id_token":"\#(S.accessToken).\#(S.refreshToken)"}"#
                        .utf8), context: S.context)
        }
        capture("JWT that is not base64url") {
            _ = try JWT("\(S.accessToken)!.\(S.refreshToken)!.\(S.idTokenSignature)")
        }
        let token = try Token(response: S.tokenResponse, context: S.context)
        _ = try Credential.store(token)
        capture("the same token stored twice") { _ = try Credential.store(token) }
        capture("a sealed box too short") {
            _ = try XChaCha20Poly1305.SealedBox(combined: Array(S.keyBytes.prefix(20)))
        }
        capture("opening under the wrong key") {
            let box = try XChaCha20Poly1305.seal(Array(S.storedValue.utf8), using: SymmetricKey(copying: S.keyBytes))
            _ = try XChaCha20Poly1305.open(box, using: SymmetricKey(randomByteCount: 32))
        }
        capture("SQLite constraint with a secret bound") {
            let database = try SQLiteDatabase(path: ":memory:", mode: .memory, busyTimeout: .zero)
            try database.write { db in
                try db.execute("CREATE TABLE t (v TEXT PRIMARY KEY)")
                try db.run("INSERT INTO t VALUES (?)", [.text(S.storedValue)])
                try db.run("INSERT INTO t VALUES (?)", [.text(S.storedValue)])
            }
        }
        // A refresh against a server that is not there: the request carried the refresh token and
        // the client secret.
        let closed = try Token(
            response: S.tokenResponse,
            context: Token.Context(
                issuer: URL(string: "http://127.0.0.1:9")!, clientID: "c", clientSecret: S.clientSecret))
        await capture("refresh with no server") {
            _ = try await OAuth2Client(context: closed.context).refresh(closed)
        }
        let noRefresh = try Token(
            response: Data(#"{"access_token":"\#(S.accessToken)","token_type":"Bearer"}"#.utf8), context: S.context)
        await capture("refresh without a refresh token") {
            _ = try await OAuth2Client(context: S.context).refresh(noRefresh)
        }

        // A DPoP-bound token with its key planted: refused without the key, and refreshed against
        // no server (the request carried a proof of the key).
        let dpopToken = try Token(
            response: Data(
                #"{"access_token":"\#(S.accessToken)","token_type":"DPoP","refresh_token":"\#(S.refreshToken)"}"#.utf8),
            context: closed.context)
        capture("authorize a DPoP token without its key") {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:9/api")!)
            try OAuth2Client(context: closed.context).authorize(&request, with: dpopToken)
        }
        await capture("refresh a DPoP token with no server") {
            let bound = dpopToken.bound(to: try DPoPKey(seed: SecureBytes(copying: S.keyBytes)))
            _ = try await OAuth2Client(context: closed.context).refresh(bound)
        }

        // Every case of every layer, with payloads as the library fills them.
        let vaultErrors: [VaultError] = [
            .invalidCredentials, .locked, .integrity("a sealed record failed authentication"),
            .unavailableOnThisDevice, .interactionRequired, .accessControlInvalidated, .accessDenied("scope"),
            .unsupportedPolicy("policy"), .notFound("/tmp/v.db"), .alreadyExists("/tmp/v.db"),
            .unsupportedFormat("format"), .invalidKeyFile("/tmp/k.key"), .invalidArgument("argument"),
            .typeMismatch("type"), .conflict("the token record was written since it was read"), .storage("disk"),
        ]
        let oauthErrors: [OAuth2Error] = [
            .server(error: "invalid_grant", description: "expired", statusCode: 400), .missingToken(.refreshToken),
            .missingEndpoint("revocation"), .network("timed out"), .invalidResponse("not JSON"),
            .unexpectedStatus(500), .invalidToken("three parts"),
            .insecureTransport("the issuer (http://id.example.com)"),
            .issuerMismatch(expected: "https://id.example.com", received: "https://other.example.com"),
            .redirectRefused("another origin (https://other.example.com)"), .dpopKeyMissing,
            .dpopNotBound(tokenType: "Bearer"), .dpopNonceRefused(statusCode: 401),
        ]
        for error in vaultErrors { errors.append(("VaultError", error)) }
        for error in oauthErrors { errors.append(("OAuth2Error", error)) }
        for error in [CryptoError.authenticationFailed, .invalidLength("key"), .invalidParameters("ops"), .outOfMemory]
        {
            errors.append(("CryptoError", error))
        }
        for error in vaultErrors.map(CredentialError.storage) + oauthErrors.map(CredentialError.oauth2) + [
            .alreadyExists("id"), .notFound("id"), .removed("id"), .conflict("id"),
            .invalidSecurityOptions("two classes"),
            .corruptRecord("a token record does not decode"), .minTTLTooLarge(60),
        ] {
            errors.append(("CredentialError", error))
        }
        for error in [
            SecretStoreError.itemNotFound, .locked, .interactionRequired, .authenticationFailed, .typeMismatch,
        ]
            + vaultErrors.map(SecretStoreError.vault)
        {
            errors.append(("SecretStoreError", error))
        }
        let everyCase = 15 + 7 + 4 + (15 + 7 + 6) + (5 + 15)
        #expect(errors.count >= everyCase + 3 + 16)
        for (what, error) in errors {
            S.expectNone(in: error, "\(what): \(type(of: error))")
            #expect(!error.localizedDescription.isEmpty)
        }
    }

    /// A DPoP-bound token's private key (the planted key bytes as its seed) in every value that
    /// carries it: the key, the token, a stored credential of it, its proofs' nonce store.
    @Test func noDPoPPrivateKeyInAnyRendering() throws {
        typealias S = PlantedSecrets
        let key = try DPoPKey(seed: SecureBytes(copying: S.keyBytes))
        let signingKey = try Ed25519SigningKey(seed: SecureBytes(copying: S.keyBytes))
        let response = Data(
            #"{"access_token":"\#(S.accessToken)","token_type":"DPoP","expires_in":3600,"refresh_token":"\#(S.refreshToken)"}"#
                .utf8)
        let token = try Token(response: response, context: S.context).bound(to: key)
        let credential = try Credential.store(token)
        #expect(credential.token.dpopKey == key)
        let nonces = DPoPNonceStore()
        nonces.remember("nonce-value", for: TestTokens.issuer)
        let values: [(String, Any)] = [
            ("DPoPKey", key), ("Ed25519SigningKey", signingKey), ("Token (DPoP)", token), ("[Token] (DPoP)", [token]),
            ("Credential (DPoP)", credential), ("Credential.token (DPoP)", credential.token),
            ("StoredToken (DPoP)", StoredToken(token: token, metadata: credential.metadata, version: 1)),
            ("DPoPNonceStore", nonces), ("DPoPOptions", DPoPOptions(nonces: nonces)),
        ]
        let base64URL = Data(S.keyBytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        for (what, value) in values {
            S.expectNone(in: value, what)
            for text in S.renderings(value) {
                #expect(!text.contains(base64URL), "\(what) shows the key's seed as base64url")
                #expect(!text.contains("nonce-value"), "\(what) shows a nonce")
            }
        }
        // What the description does show: that there is a key, and its public thumbprint.
        #expect("\(token)".contains("dpopKey"))
        #expect("\(key)".contains(key.thumbprint))
    }
}
