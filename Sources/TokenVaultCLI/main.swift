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

let parser = CommandLineParser(commands: CommandTable.commands, globalOptions: CommandTable.global)
let console = Console()
do {
    guard let (command, arguments) = try parser.parse(CommandTable.helperAliases(CommandLine.arguments)) else {
        console.out(parser.overview)
        finish(.success)
    }
    if arguments.has("help") {
        console.out(parser.help(for: command))
        finish(.success)
    }
    try await command.run(arguments, CommandContext(arguments: arguments))
    finish(.success)
} catch let reported as ReportedExit {
    finish(status: reported.status)
} catch let error as UsageError {
    console.error("tokenvault: \(error.message)")
    finish(.usage)
} catch {
    console.error("tokenvault: \(ErrorMessage.text(for: error))")
    finish(ExitCode(error))
}
