import Foundation

/// The one system call the PostgreSQL wrapper makes itself: waiting for a connection's socket to
/// become readable.
package enum PostgresSocket {
    /// Waits until `descriptor` has something to read (data, or the end of the stream).
    ///
    /// - Parameters:
    ///   - descriptor: The socket (`PQsocket`).
    ///   - timeout: The longest to wait; `.zero` only checks.
    /// - Returns: Whether it became readable within `timeout`.
    /// - Throws: ``PostgresError/Kind/connectionLost`` when `poll` fails other than by a signal.
    static func waitReadable(_ descriptor: Int32, timeout: Duration) throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let result = poll(&request, 1, Int32(clamping: milliseconds(max(.zero, deadline - clock.now))))
            if result >= 0 { return result > 0 }
            guard errno == EINTR else {
                throw PostgresError.connectionLost("waiting on the socket failed: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// `duration` in whole milliseconds, rounded up (so a wait never ends early), saturating
    /// instead of overflowing. Every PostgreSQL wait takes its timeout through this.
    package static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return .max }
        let (total, overflowAgain) = whole.addingReportingOverflow(
            (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
        return overflowAgain ? .max : total
    }
}
