import AgentProtocol
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The client side: sends a command to the agent serving the vault, when one does.
enum AgentClient {
    /// The commands the agent runs; every other command unlocks the vault itself.
    static let servedCommands = Set(ServedCommand.all.map(\.name))

    /// Has the agent run `command`, when it serves the vault.
    ///
    /// - Returns: The agent's reply, or `nil` when no agent serves the vault (a stale socket is
    ///   removed on the way), it declined, or the command is not one it runs: the caller then
    ///   runs the command itself. What `secret set` and the credential helpers read (the value,
    ///   git's or Docker's request on stdin) is read here either way and left in `context`, so it
    ///   is read once.
    /// - Throws: ``AgentStopped`` when the agent took the request and stopped before answering
    ///   (the command may have run, so it is not run again).
    static func forward(
        _ command: CommandSpec, _ commandLine: [String], _ context: inout CommandContext
    ) throws -> AgentMessage.Reply? {
        guard servedCommands.contains(command.name), let location = try? context.vaultLocation(),
            let connection = AgentConnection.connect(
                AgentSocketLocation(vault: location, environment: context.environment))
        else { return nil }
        if command.name == "secret set" {
            let name = try context.arguments.positional(0, "the secret's name")
            context.input = try SecretCommands.value(context.arguments, name: name)
        } else if command.name == "git-credential" || command.name == "docker-credential" {
            context.input = FileHandle.standardInput.readDataToEndOfFile()
        }
        let request = AgentMessage.Request(
            action: .run, vault: AgentSocketLocation.vaultIdentity(location), arguments: commandLine,
            input: context.input, stdoutIsTerminal: context.stdoutIsTerminal)
        let reply: AgentMessage.Reply
        do {
            reply = try AgentConnection.exchange(request, on: connection)
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

    /// The values `exec` puts in its program's environment, each asked of the agent as `token ID`
    /// or `secret get NAME` would be.
    ///
    /// - Returns: `nil` when no agent serves the vault or it declines: `exec` unlocks the vault itself.
    /// - Throws: ``ReportedExit`` after printing the agent's error line when a value is missing
    ///   (exit status 5, as without the agent), ``AgentStopped`` when the agent stopped mid-way.
    static func values(of bindings: [ExecCommand.Binding], _ context: CommandContext) throws -> [[UInt8]]? {
        guard let location = try? context.vaultLocation() else { return nil }
        let socket = AgentSocketLocation(vault: location, environment: context.environment)
        var values: [[UInt8]] = []
        for binding in bindings {
            let arguments: [String]
            switch binding.source {
            case .token(let reference): arguments = ["token", "--", reference]
            case .secret(let name): arguments = ["secret", "get", "--", name]
            }
            guard let connection = AgentConnection.connect(socket) else {
                if values.isEmpty { return nil }
                throw AgentStopped()
            }
            let reply: AgentMessage.Reply
            do {
                reply = try AgentConnection.exchange(
                    AgentMessage.Request(action: .run, vault: socket.vaultIdentity, arguments: arguments),
                    on: connection)
            } catch {
                if values.isEmpty { return nil }
                throw AgentStopped()
            }
            if reply.declined != nil, values.isEmpty { return nil }
            guard reply.status == 0, reply.declined == nil else {
                context.console.error(reply.stderr.trimmingCharacters(in: .newlines))
                throw ReportedExit(status: reply.status)
            }
            var value = [UInt8](reply.stdout)
            // `token` ends its line; the token itself has no newline.
            if case .token = binding.source, value.last == UInt8(ascii: "\n") { value.removeLast() }
            values.append(value)
        }
        return values
    }
}
