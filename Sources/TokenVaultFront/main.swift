// tokenvault: the program users run. It answers the commands a running agent serves by sending
// the command line to the agent and printing the reply, and runs `tokenvault-core` (the full
// command line, beside it) in its own process for everything else. It links no vault code: the
// key derivation, SQLite, PostgreSQL, OpenSSL and the networking stack, whose loading took most of
// an agent call's start-up, stay in `tokenvault-core`.
import AgentProtocol
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What asking the agent came to.
enum AgentOutcome {
    /// It ran the command.
    case replied(AgentMessage.Reply)
    /// No agent serves the vault, it declined, or the command is not one the front forwards.
    case notServed
    /// It took the request and stopped before answering (the command may have run).
    case stopped
}

/// Sends the command line to the agent that serves its vault, when there is one.
func askAgent(_ commandLine: [String], environment: [String: String]) -> AgentOutcome {
    guard let forwarded = ForwardedCommandLine(commandLine),
        let identity = forwarded.vaultIdentity(environment: environment)
    else { return .notServed }
    let location = AgentSocketLocation(vaultIdentity: identity, environment: environment)
    guard let connection = AgentConnection.connect(location) else { return .notServed }
    var input: Data?
    if let file = forwarded.valueFile {
        // An unreadable file is `tokenvault-core`'s to report.
        guard let value = try? Data(contentsOf: URL(fileURLWithPath: file)) else { return .notServed }
        input = value
    }
    let request = AgentMessage.Request(
        action: .run, vault: identity, arguments: forwarded.arguments, input: input,
        stdoutIsTerminal: isatty(STDOUT_FILENO) == 1)
    do {
        let reply = try AgentConnection.exchange(request, on: connection)
        return reply.declined == nil ? .replied(reply) : .notServed
    } catch is DecodingError {
        return .notServed
    } catch {
        return .stopped
    }
}

/// Replaces this process with `tokenvault-core` from the same folder, given the same command line
/// (`argv[0]` too, which names a credential helper) and environment.
func runCore(_ commandLine: [String]) -> Never {
    let folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    let core = folder.appendingPathComponent("tokenvault-core").path
    var arguments = commandLine.map { strdup($0) } + [nil]
    execv(core, &arguments)
    write(Data("tokenvault: cannot run \(core): \(String(cString: strerror(errno)))\n".utf8), to: STDERR_FILENO)
    exit(1)
}

/// Writes all of `data` to `descriptor`.
func write(_ data: Data, to descriptor: Int32) {
    data.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}

/// Answers the command line and returns the exit status; the reply is released before `exit`,
/// which runs no deinitializer (memory still held then is what LeakSanitizer reports as leaked).
func answer(_ commandLine: [String]) -> Int32 {
    switch askAgent(commandLine, environment: ProcessInfo.processInfo.environment) {
    case .replied(let reply):
        write(reply.stdout, to: STDOUT_FILENO)
        if !reply.stderr.isEmpty { write(Data(reply.stderr.utf8), to: STDERR_FILENO) }
        return reply.status
    case .stopped:
        write(Data("tokenvault: \(AgentStopped().localizedDescription)\n".utf8), to: STDERR_FILENO)
        return 1
    case .notServed:
        runCore(commandLine)
    }
}

exit(answer(CommandLine.arguments))
