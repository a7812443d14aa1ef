import AgentProtocol
import Foundation
import TokenVault

#if canImport(Glibc)
    import Glibc
#endif

/// `agent`, `unlock`, `lock`: one process holding the vault unlocked, so other commands skip the
/// key derivation.
enum AgentCommands {
    /// `agent`: unlocks the vault and serves it on its socket until locked or idle. Prints one
    /// line when it serves, then detaches from the terminal (its standard streams go to
    /// /dev/null; it logs to the file beside its socket).
    static func serve(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let idle = try arguments.value("idle").map(IdleTimeout.parse) ?? IdleTimeout.standard
        let vaultLocation = try context.vaultLocation()
        try vaultLocation.checkExists()
        let location = AgentSocketLocation(vault: vaultLocation, environment: context.environment)
        try location.preparePrivateDirectory()
        if AgentConnection.connect(location) != nil { throw AgentAlreadyServing(vault: vaultLocation.displayName) }
        let vault = try context.unlockedVault()
        raiseOpenFileLimit()
        let listener = try UnixSocket.listening(at: location.socket.path)
        let server = AgentServer(vault: vault, location: location, idleTimeout: idle)
        server.start(listener)
        location.appendLog("serving (pid \(getpid()), idle timeout \(idle))")
        context.console.out("Agent serving \(vaultLocation.displayName) (pid \(getpid())) on \(location.socket.path)")
        detach()
        while true { try? await Task.sleep(for: .seconds(3600)) }
    }

    /// Raises the soft limit on open files to the hard one: each client the agent serves holds a
    /// descriptor, and the common soft limit (1,024) is below the clients that can call at once.
    private static func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// `unlock`: reads the passphrase as every command does (once), starts `tokenvault agent` with
    /// it on a pipe, and returns when the agent serves.
    static func unlock(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let idle = arguments.value("idle") ?? "15m"
        _ = try IdleTimeout.parse(idle)
        let vaultLocation = try context.vaultLocation()
        try vaultLocation.checkExists()
        let location = AgentSocketLocation(vault: vaultLocation, environment: context.environment)
        try location.preparePrivateDirectory()
        if AgentConnection.connect(location) != nil {
            context.console.out("An agent already serves \(vaultLocation.displayName)")
            return
        }
        let passphrase =
            try context.givenPassphrase()
            ?? (context.keyFile == nil
                ? TerminalPrompt.readSecret("Passphrase for \(vaultLocation.promptName): ") : nil)
        let agent = Process()
        agent.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var agentArguments = ["agent", "--idle", idle]
        if let keyFile = context.keyFile { agentArguments += ["--key-file", keyFile.standardizedFileURL.path] }
        if passphrase != nil { agentArguments += ["--passphrase-fd", "0"] }
        if arguments.has("allow-insecure-permissions") { agentArguments.append("--allow-insecure-permissions") }
        agent.arguments = agentArguments
        // The location goes in the environment, not the arguments: a PostgreSQL URL may hold a
        // password, and other users can read a process's arguments but not its environment.
        var environment = context.environment
        environment["TOKENVAULT_PASSPHRASE"] = nil
        environment["TOKENVAULT_PATH"] = {
            switch vaultLocation {
            case .file(let url): url.standardizedFileURL.path
            case .postgres(let connection, _): connection
            }
        }()
        agent.environment = environment
        let (input, output, errors) = (Pipe(), Pipe(), Pipe())
        agent.standardInput = input
        agent.standardOutput = output
        agent.standardError = errors
        try agent.run()
        if let passphrase {
            passphrase.secureBytes.withUnsafeBytes { input.fileHandleForWriting.write(Data($0) + Data("\n".utf8)) }
        }
        try input.fileHandleForWriting.close()
        let ready = output.fileHandleForReading.readDataToEndOfFile()
        guard !ready.isEmpty else {
            agent.waitUntilExit()
            context.console.error(String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
            throw ReportedExit(
                status: agent.terminationStatus == 0 ? ExitCode.failure.rawValue : agent.terminationStatus)
        }
        context.console.out(String(decoding: ready, as: UTF8.self).trimmingCharacters(in: .newlines) + ", idle \(idle)")
    }

    /// `lock`: tells the agent to wipe its keys and stop.
    static func lock(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let vaultLocation = try context.vaultLocation()
        let location = AgentSocketLocation(vault: vaultLocation, environment: context.environment)
        guard let connection = AgentConnection.connect(location) else {
            context.console.out("No agent serves \(vaultLocation.displayName)")
            return
        }
        let reply = try AgentConnection.exchange(
            AgentMessage.Request(action: .lock, vault: location.vaultIdentity), on: connection)
        context.console.write(reply.stdout)
    }

    /// Leaves the terminal's session, and points the standard streams at /dev/null, so whoever
    /// started the agent sees the end of its output.
    private static func detach() {
        setsid()
        let null = open("/dev/null", O_RDWR)
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] { dup2(null, descriptor) }
        if null > STDERR_FILENO { close(null) }
    }
}

/// `tokenvault agent` for a vault another agent already serves.
struct AgentAlreadyServing: LocalizedError {
    let vault: String
    var errorDescription: String? { "an agent already serves \(vault); stop it with 'tokenvault lock'" }
}
