/// One option of a command: `--name VALUE`, or a flag `--name`.
struct OptionSpec: Sendable {
    let name: String
    let value: String?
    let help: String
    var repeatable = false

    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: nil, help: help)
    }
}

/// One command of the table: its words, arguments, options, help and what it runs.
struct CommandSpec: Sendable {
    let words: [String]
    let arguments: String
    let summary: String
    let options: [OptionSpec]
    let run: @Sendable (ParsedArguments, CommandContext) async throws -> Void

    var name: String { words.joined(separator: " ") }
}

/// What the parser found on the command line.
struct ParsedArguments: Sendable {
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []

    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
    func has(_ name: String) -> Bool { flags.contains(name) }

    /// The positional argument at `index`, or a usage error naming it.
    func positional(_ index: Int, _ name: String) throws -> String {
        guard index < positionals.count else { throw UsageError("missing \(name)") }
        return positionals[index]
    }

    /// `key=value` pairs from a repeatable option or from positionals.
    static func pairs(_ items: [String]) throws -> [String: String] {
        var result: [String: String] = [:]
        for item in items {
            guard let equals = item.firstIndex(of: "="), equals != item.startIndex else {
                throw UsageError("expected key=value, got \(item)")
            }
            result[String(item[..<equals])] = String(item[item.index(after: equals)...])
        }
        return result
    }
}

/// A command line that does not fit the table: exit status 2 and the usage line.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
