/// Finds the command in the table and parses its options; `--help` text comes from the same table.
struct CommandLineParser {
    let commands: [CommandSpec]
    let globalOptions: [OptionSpec]

    /// The command and its arguments, or `nil` with the help to print.
    func parse(_ arguments: [String]) throws -> (CommandSpec, ParsedArguments)? {
        guard
            let command = commands.filter({ Array(arguments.prefix($0.words.count)) == $0.words })
                .max(by: { $0.words.count < $1.words.count })
        else {
            if arguments.isEmpty || arguments == ["--help"] || arguments == ["-h"] || arguments == ["help"] {
                return nil
            }
            throw UsageError("unknown command '\(arguments.first ?? "")'; see tokenvault --help")
        }
        var parsed = ParsedArguments()
        let options = command.options + globalOptions
        var rest = arguments.dropFirst(command.words.count)
        while let word = rest.popFirst() {
            if word == "--help" || word == "-h" {
                parsed.flags.insert("help")
                continue
            }
            guard word.hasPrefix("--"), word.count > 2 else {
                parsed.positionals.append(word)
                continue
            }
            var name = String(word.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let option = options.first(where: { $0.name == name }) else {
                throw UsageError("unknown option --\(name) for '\(command.name)'")
            }
            if option.value == nil {
                guard inline == nil else { throw UsageError("--\(name) takes no value") }
                parsed.flags.insert(name)
                continue
            }
            guard let value = inline ?? rest.popFirst() else { throw UsageError("--\(name) needs a value") }
            if !option.repeatable, parsed.values[name] != nil { throw UsageError("--\(name) given twice") }
            parsed.values[name, default: []].append(value)
        }
        return (command, parsed)
    }

    /// The overview: every command with its summary.
    var overview: String {
        let width = commands.map(\.name.count).max() ?? 0
        let lines = commands.map { "  \($0.name.padding(toLength: width, withPad: " ", startingAt: 0))  \($0.summary)" }
        return """
            tokenvault: OAuth tokens and secrets in an encrypted vault.

            USAGE: tokenvault <command> [options]

            COMMANDS:
            \(lines.joined(separator: "\n"))

            \(optionLines("GLOBAL OPTIONS", globalOptions))
            See 'tokenvault <command> --help' for a command's options. Exit status: \(ExitCode.summary).
            """
    }

    /// One command's help.
    func help(for command: CommandSpec) -> String {
        """
        \(command.summary)

        USAGE: tokenvault \(command.name)\(command.arguments.isEmpty ? "" : " " + command.arguments) [options]

        \(command.options.isEmpty ? "" : optionLines("OPTIONS", command.options) + "\n")\(optionLines("GLOBAL OPTIONS", globalOptions))
        """
    }

    private func optionLines(_ title: String, _ options: [OptionSpec]) -> String {
        let shown = options.map { option in
            (
                "--\(option.name)" + (option.value.map { " \($0)" } ?? ""),
                option.help + (option.repeatable ? " (repeatable)" : "")
            )
        }
        let width = shown.map(\.0.count).max() ?? 0
        return "\(title):\n"
            + shown.map { "  \($0.0.padding(toLength: width, withPad: " ", startingAt: 0))  \($0.1)" }
            .joined(separator: "\n") + "\n"
    }
}
