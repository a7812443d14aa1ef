/// The `tokenvault(1)` manual page in roff, generated from the command table.
enum ManPage {
    static func text(commands: [CommandSpec], global: [OptionSpec]) -> String {
        var lines = [
            ".TH TOKENVAULT 1 \"\" \"tokenvault\" \"User Commands\"",
            ".SH NAME",
            "tokenvault \\- OAuth tokens and secrets in an encrypted vault",
            ".SH SYNOPSIS",
            ".B tokenvault",
            "[\\fIglobal options\\fR] \\fIcommand\\fR [\\fIoptions\\fR] [\\fIarguments\\fR]",
            ".SH DESCRIPTION",
            "Keeps OAuth tokens and secrets sealed in a vault file or a PostgreSQL database, and prints or hands",
            "out fresh access tokens. Global options may come before or after the command.",
            ".SH COMMANDS",
        ]
        for command in commands {
            lines += [
                ".TP",
                ".B \(escape(command.name))"
                    + (command.arguments.isEmpty ? "" : " \\fI\(escape(command.arguments))\\fR"),
                escape(command.summary),
            ]
            if !command.options.isEmpty {
                lines.append(".RS")
                lines += command.options.flatMap(option)
                lines.append(".RE")
            }
        }
        lines.append(".SH GLOBAL OPTIONS")
        lines += global.flatMap(option)
        lines += [".SH EXIT STATUS", escape(ExitCode.summary) + "."]
        return lines.joined(separator: "\n") + "\n"
    }

    private static func option(_ option: OptionSpec) -> [String] {
        [
            ".TP",
            "\\fB\\-\\-\(escape(option.name))\\fR" + (option.value.map { " \\fI\(escape($0))\\fR" } ?? ""),
            escape(option.help + (option.repeatable ? " (repeatable)" : "")),
        ]
    }

    /// Backslashes and hyphens as roff wants them, and no line that starts with a control character.
    private static func escape(_ text: String) -> String {
        let escaped = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
    }
}
