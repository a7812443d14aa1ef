/// One option of a command: `--name VALUE`, or a flag `--name`.
struct OptionSpec: Sendable {
    let name: String
    let value: String?
    let help: String
    var repeatable = false
    /// The only values accepted, for an option of an ``OptionChoice`` type.
    var choices: [String]? = nil

    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: nil, help: help)
    }

    /// An option whose value is a case of `type`; its help lists the cases.
    static func choice<Choice: OptionChoice>(
        _ name: String, _ type: Choice.Type, value: String, _ help: String, default: Choice? = nil
    ) -> OptionSpec {
        let listed = "one of: " + Choice.choices.joined(separator: ", ")
        return OptionSpec(
            name: name, value: value,
            help: "\(help) (\(listed)\(`default`.map { "; default: \($0.rawValue)" } ?? ""))",
            choices: Choice.choices)
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
    /// Notes every option name a command asks for (tests compare them with the table).
    var recorder: OptionReadRecorder? = nil

    func value(_ name: String) -> String? {
        recorder?.note(name)
        return values[name]?.last
    }

    func all(_ name: String) -> [String] {
        recorder?.note(name)
        return values[name] ?? []
    }

    func has(_ name: String) -> Bool {
        recorder?.note(name)
        return flags.contains(name)
    }

    /// The value of an ``OptionChoice`` option, or `nil` when it is not given.
    ///
    /// - Throws: ``UsageError`` naming the accepted values.
    func choice<Choice: OptionChoice>(_ name: String, as type: Choice.Type = Choice.self) throws -> Choice? {
        try value(name).map { text in
            guard let choice = Choice(rawValue: text) else { throw Choice.invalid(name) }
            return choice
        }
    }

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

    /// A value outside an option's fixed set: `--kdf must be one of: interactive, moderate, sensitive`.
    init(option: String, mustBeOneOf choices: [String]) {
        self.init("--\(option) must be one of: \(choices.joined(separator: ", "))")
    }
}
