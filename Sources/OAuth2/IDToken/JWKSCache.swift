import Foundation
import Locking

/// Issuers' JWK sets, kept between ID-token validations: one fetch per issuer serves every
/// token until a token names a key the set lacks.
///
/// A token whose `kid` the cached set lacks (a key rotated in) makes the cache fetch the set
/// again, unless a fetch for that issuer started less than ``minimumRefetchInterval`` (5 s by
/// default) before: a real rotation is accepted from the first token that comes 5 s or more after
/// the last fetch, and tokens with made-up key ids make at most one request per interval per
/// issuer. A set older than ``maximumAge`` is fetched again before use, so a key the issuer
/// withdrew stops being trusted. At most ``capacity`` issuers are kept (the least recently used
/// goes first), and concurrent fetches for one issuer are one request. Sendable.
public final class JWKSCache: Sendable {
    /// The cache clients use unless their options name another.
    public static let shared = JWKSCache()

    /// The most issuers kept.
    public let capacity: Int
    /// The shortest time between the start of one fetch of an issuer's set and a fetch for an
    /// unknown key id, in seconds: within it, an unknown `kid` is refused without asking.
    public let minimumRefetchInterval: TimeInterval

    /// The default ``minimumRefetchInterval``, in seconds.
    ///
    /// Short, so a key rotated in is refused only for tokens that come within 5 s of the last
    /// fetch (with 60 s, a rotation right after a fetch failed every sign-in for a minute); long
    /// enough that made-up key ids, however many and however fast, cost the issuer at most 12
    /// requests a minute from one process (a JWK set is a small static document), and the
    /// attacker gains nothing from them: a key the set does not have is refused either way.
    public static let defaultMinimumRefetchInterval: TimeInterval = 5
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
    ///   - minimumRefetchInterval: Seconds from the start of a fetch before an unknown key id may
    ///     cause another; ``defaultMinimumRefetchInterval`` (5) by default.
    ///   - maximumAge: Seconds a set is used before it is fetched again; a day by default.
    public init(
        capacity: Int = 16, minimumRefetchInterval: TimeInterval = defaultMinimumRefetchInterval,
        maximumAge: TimeInterval = 86_400
    ) {
        self.capacity = max(1, capacity)
        self.minimumRefetchInterval = minimumRefetchInterval
        self.maximumAge = maximumAge
    }

    /// The issuer's key for a token's header, from the cached set, or from a set fetched now when
    /// none is cached, the cached one is too old, or it lacks the key and the last fetch started
    /// at least ``minimumRefetchInterval`` ago.
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
