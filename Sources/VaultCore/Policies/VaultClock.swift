/// Monotonic time for the idle and absolute auto-lock and for proof reuse windows.
///
/// The vault reads the time only through this protocol, so tests drive auto-locking by advancing a
/// manual clock instead of sleeping.
public protocol VaultClock: Sendable {
    /// Time since a fixed origin; never goes backwards.
    var now: Duration { get }
}

/// The system's monotonic clock (`ContinuousClock`, which keeps counting while the machine sleeps).
public struct SystemVaultClock: VaultClock {
    private static let origin = ContinuousClock.now

    /// The system clock.
    public init() {}

    /// Time since the first use of this clock in the process.
    public var now: Duration { ContinuousClock.now - Self.origin }
}
