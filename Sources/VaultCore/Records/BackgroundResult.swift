import Dispatch
import Locking

/// A value computed on another thread while the caller goes on with other work, then waited for:
/// a key rotation or an upgrade re-seals the next page of records on the other cores while this
/// thread writes the last one to the database, whose connection stays on this thread
/// (``RecordReader/forEachPage(of:limit:preparing:_:)``).
final class BackgroundResult<Value: Sendable>: Sendable {
    private let done = DispatchGroup()
    private let result = Locked<Result<Value, any Error>?>(nil)

    /// Starts `work` on a global queue. The work is let go before ``value()`` returns, so it may
    /// capture a closure made escapable with `withoutActuallyEscaping`.
    ///
    /// - Parameter work: The computation.
    init(_ work: @escaping @Sendable () throws -> Value) {
        let pending = Locked<(@Sendable () throws -> Value)?>(work)
        done.enter()
        DispatchQueue.global().async { [result, done] in
            let outcome = Self.run(pending)
            result.withLock { $0 = outcome }
            done.leave()
        }
    }

    /// Runs the pending work and releases it.
    private static func run(_ pending: Locked<(@Sendable () throws -> Value)?>) -> Result<Value, any Error> {
        let work = pending.withLock { $0.take() }
        return Result { try work!() }
    }

    /// Waits for the computation.
    ///
    /// - Returns: What it returned.
    /// - Throws: What it threw.
    func value() throws -> Value {
        done.wait()
        return try result.withLock { $0! }.get()
    }
}
