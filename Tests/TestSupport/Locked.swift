import Synchronization

/// A value behind a lock that closures can capture (a `Mutex` cannot be captured).
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    /// A locked value.
    ///
    /// - Parameter value: The initial value.
    public init(_ value: Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with the value locked.
    ///
    /// - Parameter body: Reads or changes the value.
    /// - Returns: What `body` returns.
    public func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { body(&$0) }
    }

    /// The current value.
    public var value: Value { mutex.withLock { $0 } }
}
