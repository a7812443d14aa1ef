import Foundation
import TestSupport
import TokenVault
import VaultCrypto

/// Section 7: what validating an ID token costs once the issuer's keys are cached: a real-size
/// RS256 token (the claims and length the test authorization server issues, signed with a fresh
/// 2048-bit key) through `OAuth2Client.validateIDToken`, the path every grant and refresh takes,
/// beside the validator alone (no cache look-up) and the RSA signature check alone. No request is
/// made: the key cache is filled before timing.
struct IDTokenValidationBenchmark {
    /// What was measured.
    struct Result: Codable, Sendable {
        /// The compact token's length.
        let tokenBytes: Int
        /// `OAuth2Client.validateIDToken` with a warm key cache: the goal's operation.
        let clientValidation: LatencySummary
        /// `IDTokenValidator.validate(_:keys:)`: header, key choice, signature, claims.
        let validatorOnly: LatencySummary
        /// The RSA-2048 PKCS #1 v1.5 check of the signature alone.
        let signatureOnly: LatencySummary
    }

    /// The goal's limit: 50 µs per token at p50.
    static let goalNanoseconds = 50_000.0

    /// How the variants are sampled.
    let sampler: Sampler

    /// Measures the three variants in interleaved rounds.
    func run() async throws -> Result {
        let issuer = URL(string: "https://issuer.bench.invalid")!
        let clientID = "bench-client"
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let signer = try TestSigningKey(.rsa, keyID: "bench-key")
        let token = try JWT(
            try signer.token([
                "iss": issuer.absoluteString, "aud": clientID, "sub": "1", "iat": 1_800_000_000 - 60,
                "auth_time": 1_800_000_000 - 60, "exp": 1_800_000_000 + 36_000, "at_hash": "tr5iMwOlpAUdi4O_KHkG9A",
                "name": "Test User", "given_name": "Test", "family_name": "User", "email": "testuser@example.com",
                "email_verified": true, "preferred_username": "testuser", "roles": ["user"],
                "jti": "e2a2415d-b112-4c88-b2d3-890b7d2f977f",
            ]))
        let keys = try JWKSet(json: TestSigningKey.jwks([signer.publicJWK]))
        let options = IDTokenValidator.Options(keyCache: JWKSCache(), clock: { now })
        _ = try await options.keyCache.key(issuer: issuer, id: "bench-key", algorithm: .rs256, now: now) { keys }
        let client = OAuth2Client(issuer: issuer, clientID: clientID, idTokenValidation: options)
        let validator = IDTokenValidator(issuer: issuer, clientID: clientID, options: options)

        let parts = token.rawValue.split(separator: ".")
        let signingInput = Array(token.rawValue.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        let signature = Self.base64URL(parts[2])
        let publicKey = try SignaturePublicKey.rsa(
            modulus: Self.base64URL(signer.publicJWK["n"]![...]), exponent: Self.base64URL(signer.publicJWK["e"]![...]))
        guard try await client.validateIDToken(token).isVerified,
            publicKey.isValidSignature(signature, for: signingInput)
        else { fatalError("the benchmark token does not validate") }

        let samples = try await sample([
            { blackHole(try await client.validateIDToken(token)) },
            { blackHole(try validator.validate(token, keys: keys)) },
            { blackHole(publicKey.isValidSignature(signature, for: signingInput)) },
        ])
        return Result(
            tokenBytes: token.rawValue.utf8.count, clientValidation: samples[0].summary,
            validatorOnly: samples[1].summary, signatureOnly: samples[2].summary)
    }

    /// ``Sampler``'s interleaved rounds for async operations: a warm-up, then in every round each
    /// operation for the same time, in a rotated order.
    private func sample(_ bodies: [() async throws -> Void]) async throws -> [LatencySamples] {
        for body in bodies {
            let start = Stopwatch.now()
            repeat { try await body() } while Stopwatch.seconds(since: start) < sampler.warmUpSeconds
        }
        var collected = Array(repeating: LatencySamples(), count: bodies.count)
        let budget = UInt64(sampler.secondsPerRound * 1e9)
        for round in 0..<sampler.rounds {
            for step in bodies.indices {
                let index = (step + round) % bodies.count
                var samples = LatencySamples(reservingCapacity: 1024)
                let start = Stopwatch.now()
                var now = start
                repeat {
                    let before = Stopwatch.now()
                    try await bodies[index]()
                    now = Stopwatch.now()
                    samples.append(now &- before)
                } while (now &- start < budget || samples.count < sampler.minimumSamplesPerRound)
                    && samples.count < sampler.maximumSamplesPerRound
                collected[index].append(contentsOf: samples)
            }
        }
        return collected
    }

    private static func base64URL(_ text: Substring) -> [UInt8] {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Array(Data(base64Encoded: base64)!)
    }

    /// The latency table.
    static func table(_ result: Result) -> TextTable {
        var table = TextTable(["ID token (p50 / p99)", "latency"])
        table.add(["OAuth2Client.validateIDToken, warm key cache", Format.percentiles(result.clientValidation)])
        table.add(["IDTokenValidator.validate alone", Format.percentiles(result.validatorOnly)])
        table.add(["RSA-2048 signature check alone", Format.percentiles(result.signatureOnly)])
        return table
    }

    /// The section's goal.
    static func goal(_ result: Result) -> Goal {
        let p50 = result.clientValidation.p50Ns
        return Goal(
            goal: "ID-token validation adds at most 50 µs per token p50 (RS256, warm key cache)",
            measured: Format.duration(nanoseconds: p50), value: p50, limit: goalNanoseconds,
            status: p50 <= goalNanoseconds ? .met : .missed,
            note: "validator alone \(Format.duration(nanoseconds: result.validatorOnly.p50Ns)), RSA-2048 check alone "
                + "\(Format.duration(nanoseconds: result.signatureOnly.p50Ns)), \(result.tokenBytes)-byte token "
                + "(\(result.clientValidation.count) samples)")
    }
}
