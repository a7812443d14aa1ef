import Dispatch
import Locking

/// A fixed number of connections to one server, shared by threads: each borrows a connection,
/// uses it alone and gives it back. `Sendable`.
///
/// Connections are opened on demand up to ``size``; a borrower waits (up to a timeout) while all
/// are out. A connection its borrower found broken (a statement failed on a restarted server or
/// a closed socket) is closed on return, and one that broke while idle, or while out without its
/// borrower noticing, is dropped at the next check-out, so the borrower gets a working
/// replacement. Returned connections are reset with `DISCARD ALL`, so no session
/// setting (`statement_timeout`, `LISTEN`) carries over to the next borrower, unless the pool's
/// borrowers promise to change none (``resetsSessions``), which saves a round trip per borrow.
package final class PostgresPool: Sendable {
    /// The most connections open at once.
    package let size: Int
    /// Whether a returned connection is reset with `DISCARD ALL`.
    package let resetsSessions: Bool
    private let connectionString: PostgresConnectionString
    private let connectTimeout: Duration
    /// One permit per connection that may be out; a check-out takes one, a check-in returns it.
    private let permits: DispatchSemaphore
    private let state: Locked<State>

    private struct State: ~Copyable {
        var idle: [Handoff] = []
        var isClosed = false
    }

    /// An idle connection on its way from one borrower to the next. The compiler cannot follow a
    /// connection through the pool, but the pool's contract can: a borrower stops using it at
    /// ``checkIn(_:)``, and only the next ``checkOut(timeout:)`` hands it out again, so it is
    /// never used by two threads at once.
    private struct Handoff: @unchecked Sendable {
        let connection: PostgresConnection
    }

    /// A pool; no connection is opened until the first check-out.
    ///
    /// - Parameters:
    ///   - connectionString: Where every connection goes.
    ///   - size: The most connections open at once, at least 1.
    ///   - connectTimeout: Passed to each ``PostgresConnection``.
    ///   - resetsSessions: Whether to reset a returned connection with `DISCARD ALL`; pass `false`
    ///     only when no borrower changes session state (every setting in the connection string's
    ///     options or transaction-local, no `LISTEN`, no temporary table; the statements the connection
    ///     prepares itself are its own to keep).
    /// - Throws: ``PostgresError/Kind/misuse`` for a size under 1.
    package init(
        _ connectionString: PostgresConnectionString, size: Int, connectTimeout: Duration = .seconds(10),
        resetsSessions: Bool = true
    ) throws {
        guard size >= 1 else { throw PostgresError(kind: .misuse, message: "a pool needs at least one connection") }
        self.size = size
        self.resetsSessions = resetsSessions
        self.connectionString = connectionString
        self.connectTimeout = connectTimeout
        permits = DispatchSemaphore(value: size)
        state = Locked(State())
    }

    /// Borrows a connection; give it back with ``checkIn(_:)``, exactly once.
    ///
    /// - Parameter timeout: The longest to wait while every connection is out.
    /// - Returns: A connection that was usable a moment ago, idle or newly opened.
    /// - Throws: ``PostgresError/Kind/poolTimeout`` when none came free in time;
    ///   ``PostgresError/Kind/cannotConnect`` when a new one cannot be opened;
    ///   ``PostgresError/Kind/closed`` after ``close()``.
    package func checkOut(timeout: Duration) throws -> PostgresConnection {
        let milliseconds = Int(clamping: PostgresSocket.milliseconds(timeout))
        guard permits.wait(timeout: .now() + .milliseconds(milliseconds)) == .success else {
            throw PostgresError(
                kind: .poolTimeout, message: "all \(size) pooled PostgreSQL connections stayed in use")
        }
        do {
            while let connection = try takeIdle() {
                if connection.isUsable { return connection }
                connection.close()
            }
            return try PostgresConnection(connectionString, connectTimeout: connectTimeout)
        } catch {
            permits.signal()
            throw error
        }
    }

    /// Gives back a connection from ``checkOut(timeout:)``. One that broke, or that cannot be
    /// reset, is closed, and the next borrower gets a new one.
    ///
    /// - Parameter connection: The borrowed connection.
    package func checkIn(_ connection: PostgresConnection) {
        defer { permits.signal() }
        if connection.isInTransaction { try? connection.execute("ROLLBACK") }
        // libpq's status only: a borrower's failed statement marks a broken connection, and what
        // the server sends while the connection is idle is read at the next check-out, so reading
        // the socket here too would cost a system call per borrow and find nothing.
        guard connection.isOpen, !resetsSessions || (try? connection.discardSessionState()) != nil else {
            connection.close()
            return
        }
        let handoff = Handoff(connection: connection)
        let accepted = state.withLock { state in
            guard !state.isClosed else { return false }
            state.idle.append(handoff)
            return true
        }
        if !accepted { connection.close() }
    }

    /// Borrows a connection for the length of `body`, and gives it back however `body` ends.
    ///
    /// - Parameters:
    ///   - timeout: The longest to wait for a free connection.
    ///   - body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: What ``checkOut(timeout:)`` or `body` throws.
    @discardableResult
    package func withConnection<Result>(
        timeout: Duration, _ body: (PostgresConnection) throws -> Result
    ) throws -> Result {
        let connection = try checkOut(timeout: timeout)
        defer { checkIn(connection) }
        return try body(connection)
    }

    /// Closes every idle connection and refuses later check-outs; connections still out are
    /// closed when they come back.
    package func close() {
        let idle = state.withLock { state in
            state.isClosed = true
            defer { state.idle = [] }
            return state.idle
        }
        for handoff in idle { handoff.connection.close() }
    }

    private func takeIdle() throws -> PostgresConnection? {
        try state.withLock { state throws(PostgresError) -> Handoff? in
            guard !state.isClosed else { throw PostgresError.closed }
            return state.idle.popLast()
        }?.connection
    }
}
