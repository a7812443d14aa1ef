import Dispatch
import Foundation
import Locking
import VaultStorage

/// The commits other processes make to a vault in PostgreSQL, as they happen: a thread of its own
/// listens on the vault's notification channel (every write transaction notifies it at commit), so
/// a process waiting for another's write wakes when that write commits instead of polling the
/// server.
///
/// It counts what it hears. A waiter takes ``mark()`` before it looks at the vault, and
/// ``wait(since:timeout:)`` returns as soon as the count passes that mark: a commit that lands
/// between the look and the wait is not missed, because the channel was listened to before the mark
/// was taken. A lost connection counts as a change too (what it missed is unknown), and until the
/// thread listens again a wait lasts its whole timeout, so callers bound every wait and look again.
///
/// The listening connection is opened on the first ``mark()``, not with the vault: a process that
/// never waits never holds it. `Sendable`.
final class PostgresChangeFeed: Sendable {
    private let connectionString: PostgresConnectionString
    private let connectTimeout: Duration
    private let state = Locked(State())
    /// Signalled once the thread's first attempt to listen has ended, however it ended.
    private let firstAttempt = DispatchSemaphore(value: 0)

    private struct State {
        var count: UInt64 = 0
        var isStarted = false
        /// Whether the thread's first attempt to listen has ended.
        var hasAttempted = false
        var isStopped = false
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    /// How long the thread waits on the socket before it checks whether it was stopped.
    private static let stopCheckInterval = Duration.milliseconds(200)

    /// A feed that has not connected yet.
    ///
    /// - Parameters:
    ///   - connectionString: The vault's connection string; its `search_path` names the channel.
    ///   - connectTimeout: The longest the first ``mark()`` waits for the channel to be listened to.
    init(connectionString: PostgresConnectionString, connectTimeout: Duration) {
        self.connectionString = connectionString
        self.connectTimeout = connectTimeout
    }

    /// The count of commits heard so far, after making sure the channel is listened to (the first
    /// call connects, waiting up to the connect timeout; where that fails, waits fall back to their
    /// timeouts).
    ///
    /// - Returns: The mark to pass to ``wait(since:timeout:)``.
    func mark() -> UInt64 {
        let (start, attempted) = state.withLock { state -> (Bool, Bool) in
            defer { state.isStarted = true }
            return (!state.isStarted && !state.isStopped, state.hasAttempted || state.isStopped)
        }
        if start {
            let thread = Thread { [self] in listen() }
            thread.name = "tokenvault PostgreSQL change feed"
            thread.start()
        }
        if !attempted {
            // Every caller that comes before the first attempt ends waits for it, and passes the
            // signal on to the next.
            if firstAttempt.wait(timeout: Self.deadline(after: connectTimeout)) == .success {
                firstAttempt.signal()
            }
        }
        return state.withLock { $0.count }
    }

    /// Returns once a commit after `mark` was heard, or after `timeout`, whichever comes first.
    ///
    /// - Parameters:
    ///   - mark: What ``mark()`` returned before the caller looked at the vault.
    ///   - timeout: The longest to wait.
    func wait(since mark: UInt64, timeout: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let id = state.withLock { state -> UInt64? in
                guard state.count == mark, !state.isStopped else { return nil }
                state.nextWaiter += 1
                state.waiters[state.nextWaiter] = continuation
                return state.nextWaiter
            }
            guard let id else { return continuation.resume() }
            DispatchQueue.global().asyncAfter(deadline: Self.deadline(after: timeout)) { [self] in
                state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
            }
        }
    }

    /// Stops the thread (within a fraction of a second) and wakes every waiter. Safe to call twice.
    func stop() {
        wakeAll { $0.isStopped = true }
    }

    /// The thread: listens, counts what it hears, and listens again after a lost connection.
    private func listen() {
        var connection: PostgresConnection?
        while !state.withLock({ $0.isStopped }) {
            do {
                if connection == nil {
                    let opened = try PostgresConnection(connectionString, connectTimeout: connectTimeout)
                    guard let channel = try opened.queryFirst("SELECT \(PostgresSchema.changeChannel)") else {
                        throw PostgresError(kind: .invalidValue, message: "the vault's channel has no name")
                    }
                    try opened.listen(try channel.text(0))
                    connection = opened
                    heard()
                    endFirstAttempt()
                }
                if try connection?.nextNotification(timeout: Self.stopCheckInterval) != nil {
                    heard()
                }
            } catch {
                connection?.close()
                connection = nil
                heard()
                endFirstAttempt()
                Thread.sleep(forTimeInterval: 0.2)
            }
        }
        connection?.close()
    }

    /// Lets the callers of ``mark()`` waiting for the first attempt go on, the first time only.
    private func endFirstAttempt() {
        let first = state.withLock { state in
            defer { state.hasAttempted = true }
            return !state.hasAttempted
        }
        if first { firstAttempt.signal() }
    }

    /// Counts one change and wakes every waiter.
    private func heard() {
        wakeAll { $0.count &+= 1 }
    }

    /// Applies `change` to the state and resumes every waiter, in one step.
    private func wakeAll(_ change: (inout State) -> Void) {
        let waiters = state.withLock { state in
            change(&state)
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// A dispatch deadline `timeout` from now, rounded up to whole milliseconds.
    private static func deadline(after timeout: Duration) -> DispatchTime {
        .now() + .milliseconds(Int(clamping: PostgresSocket.milliseconds(timeout)))
    }
}
