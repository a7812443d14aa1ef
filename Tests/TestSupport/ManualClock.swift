import Locking
import TokenVault

/// A clock that moves only when told: auto-lock and reuse windows without sleeping.
public final class ManualClock: VaultClock {
    private let time = Locked<Duration>(.seconds(1000))

    /// A clock at an arbitrary fixed time.
    public init() {}

    /// The current time.
    public var now: Duration { time.withLock { $0 } }

    /// Moves the clock forward.
    ///
    /// - Parameter duration: How far.
    public func advance(by duration: Duration) {
        time.withLock { $0 += duration }
    }
}
