import Foundation
import Locking

/// Issuers' JWK sets, kept between ID-token validations: one fetch per issuer serves every
/// token until a token names a key the set lacks.
///
/// An unknown `kid` (a key rotated in) fetches the set again, once, and then only after
/// ``minimumRefetchInterval``: tokens with made-up key ids cannot make a client hammer the
/// issuer. A set older than ``maximumAge`` is fetched again before use, so a key the issuer
/// withdrew stops being trusted. At most ``capacity`` issuers are kept (the least recently used
/// goes first), and concurrent fetches for one issuer are one request. Sendable.
public final class JWKSCache: Sendable {
    /// The cache clients use unless their options name another.
    public static let shared = JWKSCache()

    /// The most issuers kept.
    public let capacity: Int
    /// The shortest time between two fetches of one issuer's set for unknown key ids, in seconds.
    public let minimumRefetchInterval: TimeInterval
    /// The longest a fetched set is used, in seconds.
    public let maximumAge: TimeInterval

    private struct Entry {
        var keys: JWKSet
        /// When `keys` were fetched.
        var fetchedAt: Date
        /// When a fetch for this issuer last started, successful or not.
        var attemptedAt: Date
        /// The look-up count when this entry was last used, for evicting the least recently used.
        var lastUse: UInt64
    }

    private struct State {
        var entries: [URL: Entry] = [:]
        var fetches: [URL: Task<JWKSet, any Error>] = [:]
        var uses: UInt64 = 0
    }

    private let state = Locked(State())

    /// A cache.
    ///
    /// - Parameters:
    ///   - capacity: The most issuers kept; 16 by default (at least 1).
    ///   - minimumRefetchInterval: Seconds between refetches for unknown key ids; 60 by default.
    ///   - maximumAge: Seconds a set is used before it is fetched again; a day by default.
    public init(capacity: Int = 16, minimumRefetchInterval: TimeInterval = 60, maximumAge: TimeInterval = 86_400) {
        self.capacity = max(1, capacity)
        self.minimumRefetchInterval = minimumRefetchInterval
        self.maximumAge = maximumAge
    }

    /// The issuer's key for a token's header, from the cached set, or from a set fetched now when
    /// none is cached, the cached one is too old, or it lacks the key and the last fetch is at
    /// least ``minimumRefetchInterval`` ago.
    ///
    /// - Parameters:
    ///   - issuer: The issuer.
    ///   - id: The header's `kid`.
    ///   - algorithm: The header's `alg`.
    ///   - now: The current time.
    ///   - fetch: Fetches the issuer's set.
    /// - Returns: The key.
    /// - Throws: ``IDTokenValidationError/unknownKey``, ``IDTokenValidationError/wrongKeyType``,
    ///   or what `fetch` throws.
    package func key(
        issuer: URL, id: String?, algorithm: JWSAlgorithm, now: Date,
        fetch: @escaping @Sendable () async throws -> JWKSet
    ) async throws -> JWK {
        let cached = state.withLock { state -> Entry? in
            state.uses += 1
            state.entries[issuer]?.lastUse = state.uses
            return state.entries[issuer]
        }
        if let cached, now.timeIntervalSince(cached.fetchedAt) < maximumAge {
            do {
                return try cached.keys.key(id: id, algorithm: algorithm)
            } catch {
                guard error == .unknownKey, now.timeIntervalSince(cached.attemptedAt) >= minimumRefetchInterval else {
                    throw error
                }
            }
        }
        return try await fetched(issuer: issuer, now: now, fetch: fetch).key(id: id, algorithm: algorithm)
    }

    /// The issuer's set, fetched now, or by the fetch already running for it.
    private func fetched(
        issuer: URL, now: Date, fetch: @escaping @Sendable () async throws -> JWKSet
    ) async throws -> JWKSet {
        let task = state.withLock { state in
            if let running = state.fetches[issuer] { return running }
            state.entries[issuer]?.attemptedAt = now
            let task = Task { try await fetch() }
            state.fetches[issuer] = task
            return task
        }
        let result = await task.result
        return try state.withLock { state in
            if state.fetches[issuer] == task {
                state.fetches[issuer] = nil
                if case .success(let keys) = result {
                    state.uses += 1
                    state.entries[issuer] = Entry(keys: keys, fetchedAt: now, attemptedAt: now, lastUse: state.uses)
                    while state.entries.count > capacity,
                        let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
                    {
                        state.entries[oldest] = nil
                    }
                }
            }
            return try result.get()
        }
    }
}
