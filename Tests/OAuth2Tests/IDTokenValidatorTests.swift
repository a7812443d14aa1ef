import Foundation
import OAuth2
import TestSupport
import Testing

/// ID tokens signed with keys made in the test (RSA, P-256, Ed25519, with the `openssl` command
/// line), checked against a JWK set built from their public keys: every algorithm, and each way a
/// token must be refused.
@Suite struct IDTokenValidatorTests {
    static let rsa = try! TestSigningKey(.rsa, keyID: "rsa-key")
    static let p256 = try! TestSigningKey(.p256, keyID: "ec-key")
    static let ed25519 = try! TestSigningKey(.ed25519, keyID: "ed-key")
    static let keys = try! JWKSet(json: TestSigningKey.jwks([rsa.publicJWK, p256.publicJWK, ed25519.publicJWK]))

    static let issuer = URL(string: "https://issuer.example.com")!
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let validator = IDTokenValidator(issuer: issuer, clientID: "test-client", options: .init(clock: { now }))

    /// Claims that pass every check, with `changes` applied (`NSNull` removes a claim).
    static func claims(_ changes: [String: Any] = [:]) -> [String: Any] {
        var claims: [String: Any] = [
            "iss": issuer.absoluteString, "sub": "user-1", "aud": "test-client", "iat": 1_800_000_000 - 30,
            "exp": 1_800_000_000 + 300, "nonce": "nonce-1", "email": "user@example.com",
        ]
        for (name, value) in changes { claims[name] = value is NSNull ? nil : value }
        return claims
    }

    static func validate(
        _ token: String, keys: JWKSet = keys, validator: IDTokenValidator = validator, nonce: String? = "nonce-1",
        subject: String? = nil
    ) throws -> JWT {
        try validator.validate(try JWT(token), keys: keys, nonce: nonce, subject: subject)
    }

    @Test(arguments: [rsa, p256, ed25519])
    func eachAlgorithmValidatesWithItsKey(signer: TestSigningKey) throws {
        let raw = try signer.token(Self.claims())
        let unverified = try JWT(raw)
        #expect(!unverified.isVerified)
        let verified = try Self.validate(raw)
        #expect(verified.isVerified)
        #expect(verified.rawValue == raw)
        #expect(verified.email == "user@example.com")
    }

    @Test(arguments: [rsa, p256, ed25519])
    func aSignatureByAnotherKeyOrOverOtherBytesIsRefused(signer: TestSigningKey) throws {
        let impostor = try TestSigningKey(signer.kind, keyID: signer.keyID)
        #expect(throws: IDTokenValidationError.badSignature) { try Self.validate(try impostor.token(Self.claims())) }

        let parts = try signer.token(Self.claims()).split(separator: ".").map(String.init)
        let tampered = try TestSigningKey.part(Self.claims(["sub": "admin"]))
        #expect(throws: IDTokenValidationError.badSignature) {
            try Self.validate([parts[0], tampered, parts[2]].joined(separator: "."))
        }
        let otherSignature = try signer.token(Self.claims(["sub": "user-2"])).split(separator: ".")[2]
        #expect(throws: IDTokenValidationError.badSignature) {
            try Self.validate([parts[0], parts[1], String(otherSignature)].joined(separator: "."))
        }
        // A signature cut short or grown is refused, never read past.
        #expect(throws: IDTokenValidationError.badSignature) {
            try Self.validate(parts[0] + "." + parts[1] + "." + parts[2].dropLast(4))
        }
        #expect(throws: IDTokenValidationError.badSignature) {
            try Self.validate(parts[0] + "." + parts[1] + "." + parts[2] + "AAAA")
        }
    }

    @Test func theKeySetDecidesTheAlgorithmNeverTheHeader() throws {
        // The P-256 key's kid on a token that says EdDSA (signed with the Ed25519 key), and on
        // one that says RS256: the named key is not for that algorithm.
        #expect(throws: IDTokenValidationError.wrongKeyType) {
            try Self.validate(try Self.ed25519.token(Self.claims(), header: ["kid": "ec-key"]))
        }
        #expect(throws: IDTokenValidationError.wrongKeyType) {
            try Self.validate(try Self.rsa.token(Self.claims(), header: ["kid": "ec-key"]))
        }
        // HS256 with the RSA key's public PEM as the HMAC secret: the classic confusion.
        let input =
            try TestSigningKey.part(["alg": "HS256", "kid": "rsa-key", "typ": "JWT"]) + "."
            + TestSigningKey.part(Self.claims())
        let mac = try TestSigningKey.hmacSHA256(key: try Self.rsa.publicKeyPEM(), message: Array(input.utf8))
        #expect(throws: IDTokenValidationError.unsupportedAlgorithm("HS256")) {
            try Self.validate(input + "." + TestTokens.base64URL(Data(mac)))
        }
        let unsigned = try TestSigningKey.part(["alg": "none"]) + "." + TestSigningKey.part(Self.claims()) + "."
        #expect(throws: IDTokenValidationError.unsupportedAlgorithm("none")) { try Self.validate(unsigned) }
        #expect(throws: IDTokenValidationError.unsupportedAlgorithm("none")) {
            try Self.validate(try Self.rsa.token(Self.claims(), header: ["alg": "none"]))
        }
        #expect(throws: IDTokenValidationError.unsupportedAlgorithm("(unnamed)")) {
            try Self.validate(try Self.rsa.token(Self.claims(), header: ["alg": "RS256\n<script>"]))
        }
        // An algorithm the options leave out is refused before any key is looked at.
        let rsaOnly = IDTokenValidator(
            issuer: Self.issuer, clientID: "test-client",
            options: .init(allowedAlgorithms: [.rs256], clock: { Self.now }))
        #expect(throws: IDTokenValidationError.unsupportedAlgorithm("ES256")) {
            try Self.validate(try Self.p256.token(Self.claims()), validator: rsaOnly)
        }
        #expect(try Self.validate(try Self.rsa.token(Self.claims()), validator: rsaOnly).isVerified)
    }

    @Test func keysTheHeaderCarriesOrPointsAtAreNeverUsed() throws {
        let attacker = try TestSigningKey(.p256, keyID: "attacker")
        let offers: [String: Any] = [
            "jwk": attacker.publicJWK, "jku": "https://attacker.example.com/jwks.json",
            "x5u": "https://attacker.example.com/cert.pem",
        ]
        #expect(throws: IDTokenValidationError.unknownKey) {
            try Self.validate(try attacker.token(Self.claims(), header: offers))
        }
        #expect(throws: IDTokenValidationError.badSignature) {
            try Self.validate(try attacker.token(Self.claims(), header: offers.merging(["kid": "ec-key"]) { $1 }))
        }
    }

    @Test func aKidOutsideTheSetIsUnknownAndNoKidNeedsASingleCandidate() throws {
        #expect(throws: IDTokenValidationError.unknownKey) {
            try Self.validate(try Self.p256.token(Self.claims(), header: ["kid": "rotated-in"]))
        }
        let withoutKid = try Self.p256.token(Self.claims(), header: ["kid": NSNull()])
        #expect(try Self.validate(withoutKid).isVerified)
        let second = try TestSigningKey(.p256, keyID: "ec-key-2")
        let twoECKeys = try JWKSet(json: TestSigningKey.jwks([Self.p256.publicJWK, second.publicJWK]))
        #expect(throws: IDTokenValidationError.unknownKey) { try Self.validate(withoutKid, keys: twoECKeys) }
    }

    @Test func headersAndPartsThatAreNotAPlainCompactJWSAreMalformed() throws {
        let claims = Self.claims()
        let cases: [(String, [String: Any])] = [
            ("the header has critical extensions", ["crit": ["exp"], "exp": 1]),
            ("the header's typ is not JWT", ["typ": "at+jwt"]),
            ("the header's kid is not a string", ["kid": 7]),
            ("the header has no alg", ["alg": NSNull()]),
        ]
        for (reason, header) in cases {
            #expect(throws: IDTokenValidationError.malformed(reason)) {
                try Self.validate(try Self.p256.token(claims, header: header))
            }
        }
        #expect(try Self.validate(try Self.p256.token(claims, header: ["typ": "application/jwt"])).isVerified)
        #expect(try Self.validate(try Self.p256.token(claims, header: ["typ": NSNull()])).isVerified)
        // JWT decoding takes base64 and base64url alike; the signature check takes only base64url.
        let parts = try Self.p256.token(claims).split(separator: ".").map(String.init)
        let base64Signature = parts[2].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        if base64Signature != parts[2] {
            #expect(throws: IDTokenValidationError.malformed("the signature is not base64url")) {
                try Self.validate(parts[0] + "." + parts[1] + "." + base64Signature)
            }
        }
        #expect(throws: IDTokenValidationError.malformed("the signature is not base64url")) {
            try Self.validate(parts[0] + "." + parts[1] + "." + parts[2] + "==")
        }
    }

    @Test func eachClaimCheckNamesItsFailure() throws {
        let cases: [(changes: [String: Any], expected: IDTokenValidationError)] = [
            (["iss": "https://issuer.example.com/"], .wrongIssuer),
            (["iss": "https://evil.example.com"], .wrongIssuer),
            (["iss": NSNull()], .missingClaim("iss")),
            (["sub": NSNull()], .missingClaim("sub")),
            (["aud": "another-client"], .wrongAudience),
            (["aud": ["another-client", "third"]], .wrongAudience),
            (["aud": NSNull()], .missingClaim("aud")),
            (["aud": 42], .malformed("aud is not a string or an array of strings")),
            (["aud": ["test-client", "another-client"]], .missingClaim("azp")),
            (["aud": ["test-client", "another-client"], "azp": "another-client"], .wrongAuthorizedParty),
            (["azp": "another-client"], .wrongAuthorizedParty),
            (["exp": 1_800_000_000 - 61], .expired),
            (["exp": NSNull()], .missingClaim("exp")),
            (["exp": "soon"], .malformed("exp is not a number")),
            (["iat": 1_800_000_000 + 61], .issuedInTheFuture),
            (["iat": NSNull()], .missingClaim("iat")),
            (["nonce": "nonce-2"], .wrongNonce),
            (["nonce": NSNull()], .missingClaim("nonce")),
        ]
        for (changes, expected) in cases {
            #expect(throws: expected, "\(changes)") { try Self.validate(try Self.p256.token(Self.claims(changes))) }
        }
        // Within the leeway, and the checks that only apply when asked for.
        for changes: [String: Any] in [
            ["exp": 1_800_000_000 - 59], ["iat": 1_800_000_000 + 59],
            ["aud": ["test-client", "another-client"], "azp": "test-client"], ["aud": ["test-client"]],
        ] {
            #expect(try Self.validate(try Self.p256.token(Self.claims(changes))).isVerified, "\(changes)")
        }
        let withoutNonce = try Self.p256.token(Self.claims(["nonce": NSNull()]))
        #expect(try Self.validate(withoutNonce, nonce: nil).isVerified)
        #expect(try Self.validate(withoutNonce, nonce: nil, subject: "user-1").isVerified)
        #expect(throws: IDTokenValidationError.wrongSubject) {
            try Self.validate(withoutNonce, nonce: nil, subject: "user-2")
        }
    }

    @Test func theLeewayAndTheClockAreTheOptions() throws {
        let token = try Self.p256.token(Self.claims(["exp": 1_800_000_000 - 10, "iat": 1_800_000_000 - 20]))
        #expect(try Self.validate(token).isVerified)
        let strict = IDTokenValidator(
            issuer: Self.issuer, clientID: "test-client", options: .init(leeway: 0, clock: { Self.now }))
        #expect(throws: IDTokenValidationError.expired) { try Self.validate(token, validator: strict) }
        let earlier = IDTokenValidator(
            issuer: Self.issuer, clientID: "test-client",
            options: .init(leeway: 0, clock: { Self.now.addingTimeInterval(-15) }))
        #expect(try Self.validate(token, validator: earlier).isVerified)
        let tooEarly = IDTokenValidator(
            issuer: Self.issuer, clientID: "test-client",
            options: .init(leeway: 0, clock: { Self.now.addingTimeInterval(-21) }))
        #expect(throws: IDTokenValidationError.issuedInTheFuture) { try Self.validate(token, validator: tooEarly) }
    }

    @Test func aKeySetKeepsOnlyKeysThatCanCheckIDTokenSignatures() throws {
        let rsa = Self.rsa.publicJWK
        let ec = Self.p256.publicJWK
        let ed = Self.ed25519.publicJWK
        func with(_ key: [String: String], _ changes: [String: Any]) -> [String: Any] {
            var key: [String: Any] = key
            for (name, value) in changes { key[name] = value is NSNull ? nil : value }
            return key
        }
        let small = try TestSigningKey(.rsa, keyID: "small", rsaBits: 1024)
        var offCurve = ec
        offCurve["y"] = ec["x"]
        let members: [[String: Any]] = [
            with(rsa, ["use": "enc", "kid": "encryption"]), with(rsa, ["alg": "PS256", "kid": "pss"]),
            with(rsa, ["key_ops": ["sign"], "kid": "sign-only"]), with(rsa, ["kid": 5]),
            ["kty": "oct", "k": "c2VjcmV0", "kid": "hmac", "alg": "HS256"],
            with(ec, ["crv": "P-384", "kid": "p384"]), with(offCurve, ["kid": "off-curve"]),
            with(ed, ["crv": "X25519", "kid": "x25519"]), with(ed, ["x": "AAAA", "kid": "short"]),
            with(rsa, ["n": "not base64url!", "kid": "garbled"]), small.publicJWK,
            with(rsa, ["key_ops": ["verify"], "kid": "rsa-ok"]),
            with(ec, ["alg": NSNull(), "use": NSNull(), "kid": "ec-ok"]),
            with(ed, ["kid": "ed-ok"]),
        ]
        let set = try JWKSet(json: TestSigningKey.jwks(members))
        #expect(set.keys.map(\.keyID) == ["rsa-ok", "ec-ok", "ed-ok"])
        #expect(set.keys.map(\.algorithm) == [.rs256, .es256, .edDSA])
        #expect(set.keys.map(\.keyType) == ["RSA", "EC", "OKP"])

        let many = (0..<(JWKSet.maximumKeyCount + 5)).map { with(ec, ["kid": "ec-\($0)"]) }
        #expect(try JWKSet(json: TestSigningKey.jwks(many)).keys.count == JWKSet.maximumKeyCount)
        for document in ["[]", #"{"keys": {}}"#, #"{"key": []}"#, "not json"] {
            #expect(throws: OAuth2Error.invalidResponse("the JWK set is not a JSON object with a keys array")) {
                try JWKSet(json: Data(document.utf8))
            }
        }
    }

    @Test func validationsRunConcurrentlyOnSharedKeys() async throws {
        let tokens = try [Self.rsa, Self.p256, Self.ed25519].map { try JWT(try $0.token(Self.claims())) }
        let verified = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<60 {
                group.addTask {
                    try Self.validator.validate(tokens[index % tokens.count], keys: Self.keys, nonce: "nonce-1")
                        .isVerified
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(verified == 60)
    }

    @Test func errorsNeverContainTheTokenOrItsClaims() throws {
        let token = try Self.p256.token(Self.claims(["nonce": "secret-nonce-value", "sub": "secret-subject"]))
        let parts = token.split(separator: ".").map(String.init)
        var errors: [any Error] = []
        for attempt in [
            { _ = try Self.validate(token) }, { _ = try Self.validate(token, nonce: nil, subject: "other") },
            { _ = try Self.validate(parts[0] + ".e30." + parts[2]) },
            { _ = try Self.validate(try Self.p256.token(Self.claims(), header: ["alg": token])) },
        ] {
            do {
                try attempt()
                Issue.record("a bad token was accepted")
            } catch {
                errors += [error, OAuth2Error.invalidIDToken(try #require(error as? IDTokenValidationError))]
            }
        }
        for error in errors {
            var dumped = ""
            dump(error, to: &dumped)
            for text in ["\(error)", String(reflecting: error), error.localizedDescription, dumped] {
                for secret in parts + ["secret-nonce-value", "secret-subject"] {
                    #expect(!text.contains(secret))
                }
            }
        }
    }
}
