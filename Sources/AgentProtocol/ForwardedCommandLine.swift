import Foundation

/// A command line the front `tokenvault` sends to the agent as it is: one of the
/// ``ServedCommand``s, read the way the full parser reads it (global options first, then the
/// command's words, then its options, positionals, and everything after `--`). Anything the front
/// cannot be sure of (`--help`, an unknown option, a missing value, a command not served, one
/// that reads standard input or a prompt, a helper name in `argv[0]`) makes no forwarded command
/// line, and `tokenvault-core` runs the command: it reports the usage error, or asks the agent itself.
package struct ForwardedCommandLine: Equatable {
    package let command: ServedCommand
    /// The command line after the program's name, as the agent receives it.
    package let arguments: [String]
    /// `--vault`'s value, the last one given.
    package let vault: String?
    /// `--value-file`'s value (`secret set`), the file the front reads the value from.
    package let valueFile: String?

    /// Reads `commandLine`, the program's name first.
    package init?(_ commandLine: [String]) {
        guard let program = commandLine.first, CommandLineWord.helperCommand(program: program) == nil else {
            return nil
        }
        var values: [String: String] = [:]
        var rest = commandLine.dropFirst()
        let globals = (values: ServedCommand.globalValueOptions, flags: ServedCommand.globalFlags)
        while let word = rest.first, CommandLineWord.isOption(word) {
            rest.removeFirst()
            guard Self.take(word, from: &rest, into: &values, options: globals) else { return nil }
        }
        guard
            let command = ServedCommand.all.filter({ Array(rest.prefix($0.words.count)) == $0.words })
                .max(by: { $0.words.count < $1.words.count }),
            !command.readsStandardInput
        else { return nil }
        rest = rest.dropFirst(command.words.count)
        let options = (values: command.valueOptions.union(globals.values), flags: command.flags.union(globals.flags))
        while let word = rest.popFirst() {
            if word == "--" { break }
            guard CommandLineWord.isOption(word) else { continue }
            guard Self.take(word, from: &rest, into: &values, options: options) else { return nil }
        }
        // Without a file, `secret set` reads its value from a prompt or standard input.
        if command.name == "secret set", values["value-file"] == nil { return nil }
        self.command = command
        arguments = Array(commandLine.dropFirst())
        vault = values["vault"]
        valueFile = values["value-file"]
    }

    /// The identity of the vault this command line names, as its agent knows it, or `nil` for a
    /// PostgreSQL vault (whose identity needs the connection string parsed: `tokenvault-core` does it).
    package func vaultIdentity(environment: [String: String]) -> String? {
        guard let value = VaultPath.given(option: vault, environment: environment) else {
            return AgentSocketLocation.fileIdentity(VaultPath.defaultFile(environment: environment))
        }
        if VaultPath.isPostgres(value) { return nil }
        return AgentSocketLocation.fileIdentity(URL(fileURLWithPath: value))
    }

    /// Takes the option `word` and its value, if it has one.
    ///
    /// - Returns: `false` for `--help`, an unknown option, a flag given a value, or a value missing.
    private static func take(
        _ word: String, from rest: inout ArraySlice<String>, into values: inout [String: String],
        options: (values: Set<String>, flags: Set<String>)
    ) -> Bool {
        let (name, inline) = CommandLineWord.option(word)
        if options.flags.contains(name) { return inline == nil }
        guard options.values.contains(name), let value = inline ?? rest.popFirst() else { return false }
        values[name] = value
        return true
    }
}
