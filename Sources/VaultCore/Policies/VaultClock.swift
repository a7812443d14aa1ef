#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Monotonic time for the idle and absolute auto-lock and for proof reuse windows.
///
/// The vault reads the time only through this protocol, so tests drive auto-locking by advancing a
/// manual clock instead of sleeping.
public protocol VaultClock: Sendable {
    /// Time since a fixed origin; never goes backwards.
    var now: Duration { get }
}

/// The system's monotonic clock (`ContinuousClock`'s, which keeps counting while the machine sleeps).
public struct SystemVaultClock: VaultClock {
    /// The system clock.
    public init() {}

    /// Time since the first use of this clock in the process.
    public var now: Duration {
        let origin = Self.origin  // first: its first use sets it, and a reading before it would be negative
        return Self.reading() - origin
    }

    private static let origin = reading()

    #if canImport(Glibc) || canImport(Musl)
        /// `CLOCK_BOOTTIME`, the clock `ContinuousClock` reads on Linux, read directly: every store
        /// and read reads the time twice, and `ContinuousClock` goes through the concurrency
        /// runtime to the same system call, a few dozen more lines of code run cold after a
        /// durable store's `fdatasync`.
        private static func reading() -> Duration {
            var time = timespec()
            clock_gettime(CLOCK_BOOTTIME, &time)
            return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
        }
    #else
        /// `ContinuousClock` against a fixed instant of its own.
        private static func reading() -> Duration { ContinuousClock.now - anchor }
        private static let anchor = ContinuousClock.now
    #endif
}
