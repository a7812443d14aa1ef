import Foundation
import OAuth2

extension Credential {
    /// Keeps the token fresh in the background: refreshes `graceInterval` before expiry, retries
    /// transient failures with exponential backoff and full jitter (1 s doubling to 5 min), and
    /// stops for good on `invalid_grant` (a revoked or replayed grant: sign in again) or when the
    /// credential is removed. Every failure is posted as `.credentialRefreshFailed`. The loop holds
    /// the credential while it runs, so it goes on after the app lets go of the instance; stop it
    /// with ``stopAutomaticRefresh()``.
    ///
    /// - Parameters:
    ///   - graceInterval: How early to refresh; ``refreshGraceInterval`` by default.
    ///   - sleep: Waits between attempts; tests pass one that does not really sleep.
    ///   - random: A number in 0..<1 for the jitter.
    public func startAutomaticRefresh(
        graceInterval: TimeInterval = Credential.refreshGraceInterval,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        let id = UUID()
        // The loop holds the credential until it ends: the process keeps an instance only while
        // something holds it, and an app may start the refresh and let go of the credential.
        let task = Task {
            defer { state.withLock { if $0.automaticRefreshLoop?.id == id { $0.automaticRefreshLoop = nil } } }
            var failures = 0
            while !Task.isCancelled {
                // The expiry is not secret: the loop keeps its schedule while the vault is locked.
                guard !isRemoved else { return }
                let token = redactedToken
                let wait =
                    failures == 0
                    ? max(Self.minimumAutomaticWait, token.expiresAt.timeIntervalSinceNow - graceInterval)
                    : Self.backoff(afterFailures: failures, random: random())
                do {
                    try await sleep(.milliseconds(Int(wait * 1000)))
                } catch {
                    return  // cancelled
                }
                do {
                    try await refreshIfNeeded(graceInterval: graceInterval)
                    failures = 0
                } catch CredentialError.oauth2(.server(error: "invalid_grant", _, _)) {
                    return
                } catch CredentialError.removed {
                    return
                } catch {
                    failures += 1
                }
            }
        }
        replaceAutomaticRefreshLoop(with: (id, task))
    }

    /// Stops the automatic refresh, if running.
    public func stopAutomaticRefresh() {
        replaceAutomaticRefreshLoop(with: nil)
    }

    /// Keeps `loop` as the running loop and cancels the one it replaces.
    private func replaceAutomaticRefreshLoop(with loop: (id: UUID, task: Task<Void, Never>)?) {
        let replaced = state.withLock { state in
            let replaced = state.automaticRefreshLoop?.task
            state.automaticRefreshLoop = loop
            return replaced
        }
        // Cancelled outside the lock: a cancellation handler may read the credential.
        replaced?.cancel()
    }

    /// Whether the automatic refresh loop is running (it ends by itself on `invalid_grant`).
    public var isRefreshingAutomatically: Bool {
        state.withLock { $0.automaticRefreshLoop != nil }
    }

    /// Whether the token is refreshed automatically before it expires, as Okta's
    /// `automaticRefresh`: setting `true` starts the loop with ``refreshGraceInterval`` (as
    /// ``startAutomaticRefresh(graceInterval:sleep:random:)``), `false` stops it. Reads `false`
    /// once the loop ended by itself (`invalid_grant`, or the credential was removed).
    public var automaticRefresh: Bool {
        get { isRefreshingAutomatically }
        set {
            guard newValue != isRefreshingAutomatically else { return }
            if newValue { startAutomaticRefresh() } else { stopAutomaticRefresh() }
        }
    }

    /// The shortest wait between scheduled refreshes, so a grace longer than the token's lifetime
    /// cannot make the loop spin.
    static let minimumAutomaticWait: TimeInterval = 5

    /// Full jitter over an exponential ceiling: `random * min(300, 2^(failures-1))` seconds, at least
    /// 0.5 s.
    static func backoff(afterFailures failures: Int, random: Double) -> TimeInterval {
        let ceiling = min(300, pow(2, Double(failures - 1)))
        return max(0.5, ceiling * random)
    }
}
