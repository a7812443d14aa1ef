// tokenvault: the command line over the TokenVault library. Parsing and I/O only; every behaviour
// lives in the library.
import Foundation
import TokenVault

/// Closes the vault the command opened, then exits. `exit` runs no deinitializer, so without this
/// every run would leave the vault's write-ahead log and shared-memory file behind, and the log
/// would grow with every command that writes.
func finish(_ code: ExitCode) -> Never { finish(status: code.rawValue) }

/// Closes the vault, then exits with a raw status (`exec` passes its program's on).
func finish(status: Int32) -> Never {
    (Credential.tokenStorage as? VaultTokenStorage)?.vault.close()
    exit(status)
}

/// Parses the command line and runs its command; every path ends the process.
func runCommandLine() async -> Never {
    let parser = CommandLineParser(commands: CommandTable.commands, globalOptions: CommandTable.global)
    let console = Console()
    do {
        let commandLine = CommandTable.helperAliases(CommandLine.arguments)
        guard let (command, arguments) = try parser.parse(commandLine) else {
            console.out(parser.overview)
            finish(.success)
        }
        if arguments.has("help") {
            console.out(parser.help(for: command))
            finish(.success)
        }
        var context = CommandContext(arguments: arguments)
        // The reply and the input sent are released before the exit: this function's frame is async,
        // so it lives on the heap, and what it holds when `exit` runs is memory nothing points to
        // (which LeakSanitizer reports as a leak).
        let forwarded = try AgentClient.forward(command, commandLine, &context).map { reply in
            console.write(reply.stdout)
            if !reply.stderr.isEmpty { FileHandle.standardError.write(Data(reply.stderr.utf8)) }
            return reply.status
        }
        if let status = forwarded {
            context.input = nil
            finish(status: status)
        }
        try await command.run(arguments, context)
        finish(.success)
    } catch {
        let failure = FailureReport(error)
        if let line = failure.line { console.error(line) }
        finish(status: failure.status)
    }
}

// The signals `exec` passes on are blocked before any other thread starts, so every thread
// inherits the mask (see ``SignalForwarding``). The command runs in the thread pool; this thread
// only waits, with those signals still blocked, for it to end the process.
SignalForwarding.takeOver()
Task.detached { await runCommandLine() }
DispatchSemaphore(value: 0).wait()
