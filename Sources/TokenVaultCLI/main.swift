// tokenvault: the command line over the TokenVault library. Parsing and I/O only; every behaviour
// lives in the library.
import Foundation
import TokenVault

let parser = CommandLineParser(commands: CommandTable.commands, globalOptions: CommandTable.global)
let console = Console()
do {
    guard let (command, arguments) = try parser.parse(Array(CommandLine.arguments.dropFirst())) else {
        console.out(parser.overview)
        exit(ExitCode.success.rawValue)
    }
    if arguments.has("help") {
        console.out(parser.help(for: command))
        exit(ExitCode.success.rawValue)
    }
    try await command.run(arguments, CommandContext(arguments: arguments))
    exit(ExitCode.success.rawValue)
} catch let error as UsageError {
    console.error("tokenvault: \(error.message)")
    exit(ExitCode.usage.rawValue)
} catch {
    console.error("tokenvault: \(ErrorMessage.text(for: error))")
    exit(ExitCode(error).rawValue)
}
