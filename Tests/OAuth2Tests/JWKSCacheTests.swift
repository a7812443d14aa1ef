import Foundation
import Locking
import OAuth2
import TestSupport
import Testing

/// The key cache with a fetch that counts its calls and an injected time: one fetch per issuer, a
/// refetch for an unknown key id unless one started within the minimum interval (5 s by default:
/// a key rotated in soon after a fetch is accepted 5 s later, while made-up ones cost one request
/// per interval), a refetch once the set is too old, and eviction of the least recently used issuer.
@Suite struct JWKSCacheTests {
    static let first = try! TestSigningKey(.ed25519, keyID: "first")
    static let second = try! TestSigningKey(.ed25519, keyID: "second")
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A fetch that returns the set of `keys()` at the time of the call, counting calls per issuer.
    final class Issuers: Sendable {
        let fetches = Locked<[URL: Int]>([:])
        let published = Locked<[TestSigningKey]>([first])

        func fetch(_ issuer: URL) -> @Sendable () async throws -> JWKSet {
            { [self] in
                fetches.withLock { $0[issuer, default: 0] += 1 }
                return try JWKSet(json: TestSigningKey.jwks(published.value.map(\.publicJWK)))
            }
        }

        func count(_ issuer: URL) -> Int { fetches.value[issuer] ?? 0 }
    }

    /// The EdDSA key `id` of `issuer` from `cache`, `seconds` after ``start``, fetched from `issuers`.
    static func edDSAKey(
        _ id: String, at seconds: TimeInterval, from cache: JWKSCache, of issuer: URL, fetching issuers: Issuers
    ) async throws -> JWK {
        try await cache.key(
            issuer: issuer, id: id, algorithm: .edDSA, now: start.addingTimeInterval(seconds),
            fetch: issuers.fetch(issuer))
    }

    static func issuer(_ index: Int) -> URL { URL(string: "https://issuer-\(index).example.com")! }

    @Test func anUnknownKidRefetchesOnceAndThenWaitsTheMinimumInterval() async throws {
        let cache = JWKSCache(minimumRefetchInterval: 60, maximumAge: 3600)
        let issuers = Issuers()
        let issuer = Self.issuer(1)
        func key(_ id: String, at seconds: TimeInterval) async throws -> JWK {
            try await Self.edDSAKey(id, at: seconds, from: cache, of: issuer, fetching: issuers)
        }
        #expect(try await key("first", at: 0).keyID == "first")
        #expect(try await key("first", at: 1).keyID == "first")
        #expect(issuers.count(issuer) == 1)

        // Made-up kids within the interval: no request at all.
        for index in 0..<20 {
            await #expect(throws: IDTokenValidationError.unknownKey) { try await key("forged-\(index)", at: 2) }
        }
        #expect(issuers.count(issuer) == 1)
        // After the interval, one refetch; the kid is still unknown, and the next try waits again.
        await #expect(throws: IDTokenValidationError.unknownKey) { try await key("forged", at: 61) }
        #expect(issuers.count(issuer) == 2)
        await #expect(throws: IDTokenValidationError.unknownKey) { try await key("forged", at: 62) }
        #expect(issuers.count(issuer) == 2)

        // A key rotated in is found by the refetch its first token causes.
        issuers.published.withLock { $0 = [Self.first, Self.second] }
        #expect(try await key("second", at: 130).keyID == "second")
        #expect(issuers.count(issuer) == 3)
        #expect(try await key("first", at: 131).keyID == "first")
        #expect(issuers.count(issuer) == 3)
        // A kid that names a key of another type is not a reason to refetch.
        await #expect(throws: IDTokenValidationError.wrongKeyType) {
            try await cache.key(
                issuer: issuer, id: "first", algorithm: .es256, now: Self.start.addingTimeInterval(500),
                fetch: issuers.fetch(issuer))
        }
        #expect(issuers.count(issuer) == 3)
    }

    /// With the default interval, a key rotated in seconds after a fetch is accepted as soon as
    /// 5 s have passed since that fetch; before, its tokens are refused without a request.
    @Test func aKeyRotatedInSoonAfterAFetchIsAcceptedOnceTheShortIntervalHasPassed() async throws {
        let cache = JWKSCache()
        #expect(cache.minimumRefetchInterval == 5)
        #expect(JWKSCache.defaultMinimumRefetchInterval == 5)
        let issuers = Issuers()
        let issuer = Self.issuer(1)
        func key(_ id: String, at seconds: TimeInterval) async throws -> JWK {
            try await Self.edDSAKey(id, at: seconds, from: cache, of: issuer, fetching: issuers)
        }
        #expect(try await key("first", at: 0).keyID == "first")
        issuers.published.withLock { $0 = [Self.first, Self.second] }
        // Within 5 s of the fetch: refused, and the issuer is not asked.
        await #expect(throws: IDTokenValidationError.unknownKey) { try await key("second", at: 4.9) }
        #expect(issuers.count(issuer) == 1)
        // At 5 s (a 60 s interval would still refuse it for 55 s more): one fetch finds it.
        #expect(try await key("second", at: 5).keyID == "second")
        #expect(issuers.count(issuer) == 2)
        #expect(try await key("first", at: 5.5).keyID == "first")
        #expect(try await key("second", at: 6).keyID == "second")
        #expect(issuers.count(issuer) == 2)

        // A rotation long after the last fetch is found by the first token that names it.
        let third = try TestSigningKey(.ed25519, keyID: "third")
        issuers.published.withLock { $0 = [Self.second, third] }
        #expect(try await key("third", at: 1000).keyID == "third")
        #expect(issuers.count(issuer) == 3)
    }

    /// Made-up key ids, ten a second for a minute: the issuer is asked at most once per 5 s (the
    /// first fetch, then one at 5, 10, ... 55 s), and every one of them is refused.
    @Test func madeUpKidsCostAtMostOneRequestPerInterval() async throws {
        let cache = JWKSCache()
        let issuers = Issuers()
        let issuer = Self.issuer(1)
        _ = try await cache.key(
            issuer: issuer, id: "first", algorithm: .edDSA, now: Self.start, fetch: issuers.fetch(issuer))
        for second in 0..<60 {
            for attempt in 0..<10 {
                await #expect(throws: IDTokenValidationError.unknownKey) {
                    try await cache.key(
                        issuer: issuer, id: "forged-\(second)-\(attempt)", algorithm: .edDSA,
                        now: Self.start.addingTimeInterval(TimeInterval(second) + TimeInterval(attempt) / 10),
                        fetch: issuers.fetch(issuer))
                }
            }
        }
        #expect(issuers.count(issuer) == 12)
    }

    @Test func aSetOlderThanTheMaximumAgeIsFetchedAgainSoWithdrawnKeysStopWorking() async throws {
        let cache = JWKSCache(minimumRefetchInterval: 60, maximumAge: 3600)
        let issuers = Issuers()
        let issuer = Self.issuer(1)
        func key(at seconds: TimeInterval) async throws -> JWK {
            try await Self.edDSAKey("first", at: seconds, from: cache, of: issuer, fetching: issuers)
        }
        _ = try await key(at: 0)
        _ = try await key(at: 3599)
        #expect(issuers.count(issuer) == 1)
        issuers.published.withLock { $0 = [Self.second] }
        await #expect(throws: IDTokenValidationError.unknownKey) { try await key(at: 3600) }
        #expect(issuers.count(issuer) == 2)
    }

    @Test func theLeastRecentlyUsedIssuerIsEvictedBeyondTheCapacity() async throws {
        let cache = JWKSCache(capacity: 2)
        let issuers = Issuers()
        func use(_ index: Int) async throws {
            _ = try await cache.key(
                issuer: Self.issuer(index), id: "first", algorithm: .edDSA, now: Self.start,
                fetch: issuers.fetch(Self.issuer(index)))
        }
        try await use(1)
        try await use(2)
        try await use(1)  // 2 is now the least recently used
        try await use(3)  // evicts 2
        try await use(1)
        try await use(3)
        #expect((1...3).map { issuers.count(Self.issuer($0)) } == [1, 1, 1])
        try await use(2)  // fetched again, evicting 1
        #expect(issuers.count(Self.issuer(2)) == 2)
        try await use(3)
        try await use(1)
        #expect((1...3).map { issuers.count(Self.issuer($0)) } == [2, 2, 1])
    }

    @Test func aFailedFetchIsNotCached() async throws {
        let cache = JWKSCache()
        let calls = Locked(0)
        let issuer = Self.issuer(1)
        let failing: @Sendable () async throws -> JWKSet = {
            calls.withLock { $0 += 1 }
            throw OAuth2Error.network("the request timed out")
        }
        for _ in 0..<2 {
            await #expect(throws: OAuth2Error.network("the request timed out")) {
                try await cache.key(issuer: issuer, id: "first", algorithm: .edDSA, now: Self.start, fetch: failing)
            }
        }
        #expect(calls.value == 2)
        let issuers = Issuers()
        _ = try await cache.key(
            issuer: issuer, id: "first", algorithm: .edDSA, now: Self.start, fetch: issuers.fetch(issuer))
        #expect(issuers.count(issuer) == 1)
    }
}
