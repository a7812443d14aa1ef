import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A client's side of one request: connecting to the agent of a vault and exchanging the request
/// for its reply. Both `tokenvault` front and `tokenvault-core` use it, so they agree on when an
/// agent serves.
package enum AgentConnection {
    /// A connection to the agent at `location`, or `nil` when none listens; a socket nobody listens
    /// on any more (an agent that was killed) is removed.
    package static func connect(_ location: AgentSocketLocation) -> UnixSocket? {
        guard (try? location.checkPrivate()) != nil else { return nil }
        do {
            return try UnixSocket.connected(to: location.socket.path)
        } catch let failure as UnixSocket.Failure where failure.code == ECONNREFUSED {
            unlink(location.socket.path)
            return nil
        } catch {
            return nil
        }
    }

    /// Sends `request` and reads the reply.
    ///
    /// - Throws: `DecodingError` for a reply of another protocol version, ``UnixSocket/Failure``
    ///   when the connection broke.
    package static func exchange(_ request: AgentMessage.Request, on connection: UnixSocket) throws
        -> AgentMessage.Reply
    {
        try connection.send(frame: AgentMessage.encode(request))
        let frame = try connection.receiveFrame()
        let probe = try JSONDecoder().decode(AgentMessage.VersionProbe.self, from: frame)
        guard probe.version == AgentMessage.version else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "the agent speaks protocol version \(probe.version)"))
        }
        return try JSONDecoder().decode(AgentMessage.Reply.self, from: frame)
    }
}

/// The agent took a request and stopped before answering; the command may have run.
package struct AgentStopped: LocalizedError {
    package init() {}

    package var errorDescription: String? {
        "the agent stopped before answering; the command may or may not have run"
    }
}
