/// How a word of the command line is read, by the full parser and by the front alike: one
/// definition, so the two cannot tell an option from a positional differently.
package enum CommandLineWord {
    /// `--name`, `--name=VALUE`, `--help` or `-h`; any other word (`-` for stdin too) is positional.
    package static func isOption(_ word: String) -> Bool { word == "-h" || (word.hasPrefix("--") && word.count > 2) }

    /// An option word's name without its dashes, and the value given inline (`--name=VALUE`).
    package static func option(_ word: String) -> (name: String, inline: String?) {
        let name = word.dropFirst(2)
        guard let equals = name.firstIndex(of: "=") else { return (String(name), nil) }
        return (String(name[..<equals]), String(name[name.index(after: equals)...]))
    }

    /// The command a program name stands for when `tokenvault` runs through a link named as git
    /// and Docker look credential helpers up, or `nil` for any other name.
    package static func helperCommand(program: String) -> String? {
        // The last path component, without building a URL: that alone was a visible part of start-up.
        switch program.split(separator: "/").last.map(String.init) ?? program {
        case "git-credential-tokenvault": "git-credential"
        case "docker-credential-tokenvault": "docker-credential"
        default: nil
        }
    }
}
