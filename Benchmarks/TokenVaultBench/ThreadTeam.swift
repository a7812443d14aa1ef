import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs one operation on several OS threads at once and sums their rates: every thread warms up,
/// waits at a barrier until all are ready, then runs for the same time on its own buffers.
enum ThreadTeam {
    /// Shared by the threads of one run.
    private final class Coordination: Sendable {
        let ready = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
        let rates = Mutex<[Double]>([])
    }

    /// The summed rate of `threads` threads, each running what `makeWorker` makes for `seconds`.
    ///
    /// - Parameters:
    ///   - threads: How many threads.
    ///   - seconds: How long each runs, after its warm-up.
    ///   - makeWorker: Called once on each thread to make its operation and buffers.
    /// - Returns: Operations per second, all threads together.
    static func rate(
        threads: Int, seconds: Double, makeWorker: @escaping @Sendable () -> (() throws -> Void)
    ) -> Double {
        let shared = Coordination()
        let budget = UInt64(seconds * 1e9)
        for _ in 0..<threads {
            let thread = Thread {
                let work = makeWorker()
                do {
                    let warmUp = Stopwatch.now()
                    while Stopwatch.now() &- warmUp < 20_000_000 { try work() }
                    shared.ready.add(1, ordering: .acquiringAndReleasing)
                    while shared.ready.load(ordering: .acquiring) < threads { sched_yield() }
                    var operations = 0
                    let start = Stopwatch.now()
                    var elapsed: UInt64 = 0
                    repeat {
                        for _ in 0..<8 { try work() }
                        operations += 8
                        elapsed = Stopwatch.now() &- start
                    } while elapsed < budget
                    let rate = Double(operations) / (Double(elapsed) / 1e9)
                    shared.rates.withLock { $0.append(rate) }
                } catch {
                    fatalError("a scaling worker failed: \(error)")
                }
                shared.finished.add(1, ordering: .acquiringAndReleasing)
            }
            thread.start()
        }
        while shared.finished.load(ordering: .acquiring) < threads { usleep(1_000) }
        return shared.rates.withLock { $0.reduce(0, +) }
    }
}
