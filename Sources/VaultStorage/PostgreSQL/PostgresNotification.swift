/// A notification delivered to a connection that listens on its channel (`LISTEN` / `NOTIFY`).
package struct PostgresNotification: Sendable, Equatable {
    /// The channel it was sent on.
    package let channel: String
    /// The payload (empty when none was given).
    package let payload: String
    /// The server process of the connection that sent it.
    package let senderProcessID: Int32

    /// A notification.
    ///
    /// - Parameters:
    ///   - channel: The channel it was sent on.
    ///   - payload: The payload.
    ///   - senderProcessID: The sending server process.
    package init(channel: String, payload: String, senderProcessID: Int32) {
        self.channel = channel
        self.payload = payload
        self.senderProcessID = senderProcessID
    }
}
