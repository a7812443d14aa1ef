import Foundation
import Locking

/// Runs `body` on a thread of its own and waits at most `limit` for what it returns: a call that
/// must not block (SQLite opening a FIFO waits for a writer for ever) then fails the one test that
/// makes it instead of hanging the run.
///
/// Swift Testing's `.timeLimit` does not serve here: it races the test against a timer on the
/// shared test pool, which tests waiting on other processes can hold for minutes, so under a
/// sanitizer a test whose work takes microseconds was once reported over a one-minute limit.
///
/// - Returns: What `body` returned, or `nil` when it had not returned within `limit` (its thread
///   is then left to it).
public func resultOnOwnThread<Result: Sendable>(
    within limit: Duration, _ body: @escaping @Sendable () -> Result
) -> Result? {
    let finished = DispatchSemaphore(value: 0)
    let result = Locked<Result?>(nil)
    Thread.detachNewThread {
        let value = body()
        result.withLock { $0 = value }
        finished.signal()
    }
    guard finished.wait(timeout: .now(plus: limit)) == .success else { return nil }
    return result.value
}
