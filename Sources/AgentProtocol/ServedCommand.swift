/// A command the agent runs for a client, with the options it takes: what the front `tokenvault`
/// needs to read such a command line as the full parser would, without linking it. A test holds
/// these against the command table.
package struct ServedCommand: Sendable, Equatable {
    package let words: [String]
    /// The options that take a value (`--name VALUE` or `--name=VALUE`).
    package let valueOptions: Set<String>
    /// The options that take none.
    package let flags: Set<String>
    /// Whether the client reads the command's input itself, from standard input (git's and
    /// Docker's requests) or, for `secret set` without `--value-file`, a prompt: the front leaves
    /// those to `tokenvault-core`, which can fall back to running the command without the agent
    /// on the input it read.
    package let readsStandardInput: Bool

    package var name: String { words.joined(separator: " ") }

    /// Every command the agent runs.
    package static let all: [ServedCommand] = [
        ServedCommand(words: ["secret", "get"]),
        ServedCommand(words: ["secret", "set"], valueOptions: ["value-file"]),
        ServedCommand(words: ["secret", "rm"]),
        ServedCommand(words: ["secret", "list"]),
        ServedCommand(words: ["list"], valueOptions: ["where", "claim"], flags: ["verified"]),
        ServedCommand(words: ["show"], flags: ["reveal"]),
        ServedCommand(words: ["token"]),
        ServedCommand(words: ["git-credential"], readsStandardInput: true),
        ServedCommand(words: ["docker-credential"], readsStandardInput: true),
    ]

    /// The global options that take a value, before or after the command.
    package static let globalValueOptions: Set<String> = ["vault", "key-file", "passphrase-file", "passphrase-fd"]
    /// The global options that take none.
    package static let globalFlags: Set<String> = ["json", "allow-insecure-permissions"]

    private init(
        words: [String], valueOptions: Set<String> = [], flags: Set<String> = [], readsStandardInput: Bool = false
    ) {
        self.words = words
        self.valueOptions = valueOptions
        self.flags = flags
        self.readsStandardInput = readsStandardInput
    }
}
