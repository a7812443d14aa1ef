import Foundation
import Locking

/// Ends a test's child process, and every process it started, once it has run far longer than
/// any run should: a hang then fails the one test that waits for it, where the waiting test would
/// otherwise hold a thread of the test pool, and with it the whole run, for ever.
///
/// The processes are found through `/proc/PID/task/TID/children` before any is killed (a killed
/// parent's children move to another parent) and killed by PID with SIGKILL.
public final class HangWatchdog: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let killed = Locked<[Int32]?>(nil)

    /// Starts watching `pid`.
    ///
    /// - Parameters:
    ///   - pid: The process.
    ///   - limit: How long it may run from now.
    public init(pid: Int32, limit: Duration) {
        Thread.detachNewThread { [done, killed] in
            guard done.wait(timeout: .now(plus: limit)) == .timedOut else { return }
            let tree = [pid] + Self.descendants(of: pid)
            for process in tree { kill(process, SIGKILL) }
            killed.withLock { $0 = tree }
        }
    }

    /// Stops watching; call it once the process has ended.
    ///
    /// - Returns: The processes the watchdog killed, the watched one first, or `nil` when it did
    ///   not fire.
    public func stop() -> [Int32]? {
        done.signal()
        return killed.value
    }

    /// Every process `pid` started that is still running, and theirs, depth first.
    static func descendants(of pid: Int32) -> [Int32] {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        let children = threads.flatMap { thread in
            ((try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/children", encoding: .utf8)) ?? "")
                .split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        return children.flatMap { [$0] + descendants(of: $0) }
    }
}
