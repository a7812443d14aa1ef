import Foundation

extension DispatchTime {
    /// The time `duration` from now, to the nanosecond, for a semaphore's wait.
    static func now(plus duration: Duration) -> DispatchTime {
        let (seconds, attoseconds) = duration.components
        return .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
