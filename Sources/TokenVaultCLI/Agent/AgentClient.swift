import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The client side: sends a command to the agent serving the vault, when one does.
enum AgentClient {
    /// The commands the agent runs; every other command unlocks the vault itself.
    static let servedCommands: Set<String> = [
        "secret get", "secret set", "secret rm", "secret list", "list", "token", "show",
    ]

    /// Has the agent run `command`, when it serves the vault.
    ///
    /// - Returns: The agent's reply, or `nil` when no agent serves the vault (a stale socket is
    ///   removed on the way), it declined, or the command is not one it runs: the caller then
    ///   runs the command itself. For `secret set` the value is read here either way and left in
    ///   `context`, so it is read once.
    /// - Throws: ``AgentStopped`` when the agent took the request and stopped before answering
    ///   (the command may have run, so it is not run again).
    static func forward(
        _ command: CommandSpec, _ commandLine: [String], _ context: inout CommandContext
    ) throws -> AgentMessage.Reply? {
        guard servedCommands.contains(command.name), let location = try? context.vaultLocation(),
            let connection = connect(AgentSocketLocation(vault: location, environment: context.environment))
        else { return nil }
        if command.name == "secret set" {
            let name = try context.arguments.positional(0, "the secret's name")
            context.input = try SecretCommands.value(context.arguments, name: name)
        }
        let request = AgentMessage.Request(
            action: .run, vault: AgentSocketLocation.vaultIdentity(location), arguments: commandLine,
            input: context.input, stdoutIsTerminal: context.stdoutIsTerminal)
        let reply: AgentMessage.Reply
        do {
            reply = try exchange(request, on: connection)
        } catch is DecodingError {
            context.console.error("tokenvault: the agent answered in another protocol; unlocking without it")
            return nil
        } catch {
            throw AgentStopped()
        }
        if let declined = reply.declined {
            context.console.error("tokenvault: \(declined); unlocking without the agent")
            return nil
        }
        return reply
    }

    /// A connection to the agent at `location`, or `nil` when none listens; a socket nobody listens
    /// on any more (an agent that was killed) is removed.
    static func connect(_ location: AgentSocketLocation) -> UnixSocket? {
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
    static func exchange(_ request: AgentMessage.Request, on connection: UnixSocket) throws -> AgentMessage.Reply {
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
struct AgentStopped: LocalizedError {
    var errorDescription: String? { "the agent stopped before answering; the command may or may not have run" }
}
