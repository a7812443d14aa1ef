import AgentProtocol

/// Finds the command in the table and parses its options; `--help` text comes from the same table.
struct CommandLineParser {
    let commands: [CommandSpec]
    let globalOptions: [OptionSpec]

    /// The command and its arguments, or `nil` with the help to print. Global options may come
    /// before the command as well as after it; a command's own options only after it.
    func parse(_ arguments: [String]) throws -> (CommandSpec, ParsedArguments)? {
        var parsed = ParsedArguments()
        var rest = arguments[...]
        while let word = rest.first, CommandLineWord.isOption(word) {
            rest.removeFirst()
            try take(word, from: &rest, into: &parsed, options: globalOptions) { name in
                "unknown option --\(name) before the command (only global options may come first); "
                    + "see tokenvault --help"
            }
        }
        guard
            let command = commands.filter({ Array(rest.prefix($0.words.count)) == $0.words })
                .max(by: { $0.words.count < $1.words.count })
        else {
            if rest.isEmpty {
                if parsed.has("help") || (parsed.values.isEmpty && parsed.flags.isEmpty) { return nil }
                throw UsageError("missing command; see tokenvault --help")
            }
            throw UsageError("unknown command '\(rest.first ?? "")'; see tokenvault --help")
        }
        let options = command.options + globalOptions
        rest = rest.dropFirst(command.words.count)
        while let word = rest.popFirst() {
            if word == "--" {
                // Everything after `--` is positional (`exec -- program --its-options`).
                parsed.positionals += rest
                break
            }
            guard CommandLineWord.isOption(word) else {
                parsed.positionals.append(word)
                continue
            }
            try take(word, from: &rest, into: &parsed, options: options) { name in
                "unknown option --\(name) for '\(command.name)'"
            }
        }
        return (command, parsed)
    }

    /// Parses the option `word` (`--name`, `--name VALUE`, `--name=VALUE`, `--help`), taking its
    /// value from `rest` when it has one.
    private func take(
        _ word: String, from rest: inout ArraySlice<String>, into parsed: inout ParsedArguments,
        options: [OptionSpec], unknown: (String) -> String
    ) throws {
        if word == "--help" || word == "-h" {
            parsed.flags.insert("help")
            return
        }
        let (name, inline) = CommandLineWord.option(word)
        guard let option = options.first(where: { $0.name == name }) else { throw UsageError(unknown(name)) }
        if option.value == nil {
            guard inline == nil else { throw UsageError("--\(name) takes no value") }
            parsed.flags.insert(name)
            return
        }
        guard let value = inline ?? rest.popFirst() else { throw UsageError("--\(name) needs a value") }
        if let choices = option.choices, !choices.contains(value) {
            throw UsageError(option: name, mustBeOneOf: choices)
        }
        if !option.repeatable, parsed.values[name] != nil { throw UsageError("--\(name) given twice") }
        parsed.values[name, default: []].append(value)
    }

    /// The overview: every command with its summary.
    var overview: String {
        let width = commands.map(\.name.count).max() ?? 0
        let lines = commands.map { "  \($0.name.padding(toLength: width, withPad: " ", startingAt: 0))  \($0.summary)" }
        return """
            tokenvault: OAuth tokens and secrets in an encrypted vault.

            USAGE: tokenvault [global options] <command> [options]

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
