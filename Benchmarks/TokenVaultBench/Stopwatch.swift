#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The monotonic clock every sample is timed with: `clock_gettime(CLOCK_MONOTONIC)` in
/// nanoseconds, read directly so a sample costs one vDSO call and nothing else; and the thread's
/// CPU clock, read beside it where a section tells CPU from waiting.
enum Stopwatch {
    /// Nanoseconds on the monotonic clock.
    @inline(__always)
    static func now() -> UInt64 { nanoseconds(on: CLOCK_MONOTONIC) }

    /// How long `body` takes, in nanoseconds.
    @inline(__always)
    static func time(_ body: () throws -> Void) rethrows -> UInt64 {
        let start = now()
        try body()
        return now() &- start
    }

    /// Nanoseconds of CPU the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`): its own code
    /// and the kernel's work in its system calls, not the time it waited for the disk.
    @inline(__always)
    static func threadCPUNow() -> UInt64 { nanoseconds(on: CLOCK_THREAD_CPUTIME_ID) }

    /// `clock`'s reading in nanoseconds.
    @inline(__always)
    private static func nanoseconds(on clock: clockid_t) -> UInt64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// How long `body` takes on the monotonic clock, and how much CPU the calling thread used in
    /// it, both in nanoseconds.
    @inline(__always)
    static func timeWithCPU(_ body: () throws -> Void) rethrows -> (wall: UInt64, cpu: UInt64) {
        let startCPU = threadCPUNow()
        let start = now()
        try body()
        let wall = now() &- start
        return (wall, threadCPUNow() &- startCPU)
    }

    /// Seconds elapsed since `start` (a value of ``now()``).
    static func seconds(since start: UInt64) -> Double {
        Double(now() &- start) / 1e9
    }

    /// The cost of one ``now()`` call in nanoseconds: included once in every timed sample, and
    /// stated in the machine header so tiny latencies can be read against it.
    static func overheadNanoseconds() -> Double {
        let calls = 200_000
        var sink: UInt64 = 0
        let start = now()
        for _ in 0..<calls { sink &+= now() }
        let elapsed = now() &- start
        blackHole(sink)
        return Double(elapsed) / Double(calls)
    }
}

/// Keeps a value alive so the optimiser cannot drop the work that produced it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
