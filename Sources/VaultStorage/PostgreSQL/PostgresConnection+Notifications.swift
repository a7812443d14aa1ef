internal import CPostgres
import Foundation

extension PostgresConnection {
    /// Starts listening on `channel` (`LISTEN`), so ``nextNotification(timeout:)`` receives what
    /// is sent on it. Wraps `PQescapeIdentifier` for the channel name.
    ///
    /// - Parameter channel: The channel name, any text (quoted here as an identifier).
    /// - Throws: ``PostgresError``.
    package func listen(_ channel: String) throws {
        try execute("LISTEN \(try identifier(channel))")
    }

    /// Stops listening on `channel` (`UNLISTEN`).
    ///
    /// - Parameter channel: The channel name.
    /// - Throws: ``PostgresError``.
    package func unlisten(_ channel: String) throws {
        try execute("UNLISTEN \(try identifier(channel))")
    }

    /// Sends a notification (`pg_notify`); listeners receive it when the surrounding transaction
    /// commits, or at once outside a transaction.
    ///
    /// - Parameters:
    ///   - channel: The channel name.
    ///   - payload: The payload, under 8000 bytes.
    /// - Throws: ``PostgresError``.
    package func notify(_ channel: String, payload: String = "") throws {
        try run("SELECT pg_notify($1, $2)", [.text(channel), .text(payload)])
    }

    /// Waits for the next notification on a channel this connection listens on.
    ///
    /// Returns one already received first; otherwise waits on the connection's socket
    /// (`PQsocket` + `poll`), reads what arrives (`PQconsumeInput`) and returns the first
    /// notification in it (`PQnotifies`). Call it outside a transaction: notifications are
    /// delivered between transactions.
    ///
    /// - Parameter timeout: The longest to wait.
    /// - Returns: The notification, or `nil` when none came within `timeout`.
    /// - Throws: ``PostgresError/Kind/connectionLost`` when the connection breaks while waiting.
    package func nextNotification(timeout: Duration) throws -> PostgresNotification? {
        let handle = try openHandle()
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            if let notification = PQnotifies(handle) {
                defer { PQfreemem(notification) }
                return PostgresNotification(
                    channel: String(cString: notification.pointee.relname),
                    payload: notification.pointee.extra.map { String(cString: $0) } ?? "",
                    senderProcessID: notification.pointee.be_pid)
            }
            let remaining = deadline - clock.now
            guard remaining > .zero else { return nil }
            let descriptor = PQsocket(handle)
            guard descriptor >= 0 else { throw lostOrClientError() }
            if try PostgresSocket.waitReadable(descriptor, timeout: remaining), PQconsumeInput(handle) != 1 {
                throw lostOrClientError()
            }
        }
    }

    private func identifier(_ name: String) throws -> String {
        let handle = try openHandle()
        guard let quoted = PQescapeIdentifier(handle, name, name.utf8.count) else {
            throw PostgresError(kind: .invalidValue, message: "the channel name is not valid text")
        }
        defer { PQfreemem(quoted) }
        return String(cString: quoted)
    }
}
