/// `completion` and `help`: text generated from the command table.
enum DocumentationCommands {
    static func completion(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let name = try arguments.positional(0, "a shell (\(CompletionScript.Shell.choices.joined(separator: ", ")))")
        guard let shell = CompletionScript.Shell(rawValue: name) else {
            throw UsageError("completion needs one of: " + CompletionScript.Shell.choices.joined(separator: ", "))
        }
        context.console.out(
            CompletionScript.script(for: shell, commands: CommandTable.commands, global: CommandTable.global))
    }

    static func help(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        if arguments.has("man") {
            context.console.out(ManPage.text(commands: CommandTable.commands, global: CommandTable.global))
        } else {
            context.console.out(
                CommandLineParser(commands: CommandTable.commands, globalOptions: CommandTable.global).overview)
        }
    }
}
