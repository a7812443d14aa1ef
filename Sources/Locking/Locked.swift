#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value only one thread at a time can reach: `Synchronization.Mutex`'s API over a `pthread_mutex_t`.
///
/// The house style prefers `Mutex`, and this type keeps its shape (`withLock`, values passed as `sending`)
/// so call sites read the same. It exists for ThreadSanitizer: on Linux a contended `Mutex` hands the lock
/// over inside the kernel (`FUTEX_LOCK_PI`), which ThreadSanitizer cannot see, so every contended section
/// was reported as a data race and real races would drown among them. ThreadSanitizer intercepts
/// `pthread_mutex_lock`, so under this lock its reports are about real races.
package final class Locked<Value: ~Copyable>: @unchecked Sendable {
    // Heap-allocated: a pthread mutex must not move once initialised.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Only reached under the mutex, which already makes every access exclusive: the runtime's
    // own exclusivity check would only add a thread-local look-up to every call.
    @exclusivity(unchecked) private var protected: Value

    /// A lock around `value`.
    ///
    /// - Parameter value: The initial value; it is reachable only through ``withLock(_:)`` afterwards.
    package init(_ value: consuming sending Value) {
        protected = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value locked.
    ///
    /// - Parameter body: Reads or changes the value; it must not call back into this lock.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws; the lock is released either way.
    package func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&protected)
    }
}

extension Locked where Value: Copyable {
    /// A copy of the current value, read under the lock.
    package var value: Value { withLock { $0 } }
}
