import Foundation
import TestSupport
import Testing

@testable import TokenVaultCLI

/// Completion scripts and the manual page from the real binary, checked against the command table.
@Suite struct CLIDocumentationTests {
    func generated(_ arguments: [String]) throws -> String {
        let result = try CLIProcess.run(arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result.stdout
    }

    /// What the bash completion offers for `words`, the last being the word being completed.
    func bashCompletes(_ script: URL, _ words: [String]) throws -> [String] {
        let quoted = (["tokenvault"] + words).map { "'\($0)'" }.joined(separator: " ")
        let result = try runProgram(
            "/bin/bash",
            [
                "-c",
                "source '\(script.path)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count); _tokenvault; "
                    + #"printf '%s\n' "${COMPREPLY[@]}""#,
            ])
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesEveryCommandAndOptionAndEveryEnumeratedValue() throws {
        let directory = TemporaryDirectory()
        let script = directory.file("tokenvault.bash")
        try generated(["completion", "bash"]).write(to: script, atomically: true, encoding: .utf8)
        #expect(try runProgram("/bin/bash", ["-n", script.path]).status == 0)
        let firstWords = try bashCompletes(script, [""])
        for command in CommandTable.commands {
            #expect(firstWords.contains(command.words[0]), "\(command.name)")
            if command.words.count > 1 {
                #expect(
                    try bashCompletes(script, [command.words[0], ""]).contains(command.words[1]), "\(command.name)")
            }
            // Global options before the command, and their values, do not confuse it.
            let offered = Set(try bashCompletes(script, ["--vault", "v.db"] + command.words + ["--"]))
            let expected = Set((command.options + CommandTable.global).map { "--\($0.name)" })
            #expect(expected.isSubset(of: offered), "\(command.name) lacks \(expected.subtracting(offered).sorted())")
            for option in command.options {
                guard let choices = option.choices else { continue }
                #expect(try bashCompletes(script, command.words + ["--\(option.name)", ""]) == choices)
            }
        }
    }

    @Test func zshAndFishScriptsNameEveryCommandAndOption() throws {
        let zsh = try generated(["completion", "zsh"])
        #expect(zsh.hasPrefix("#compdef tokenvault\n"))
        let fish = try generated(["completion", "fish"])
        for command in CommandTable.commands {
            #expect(zsh.contains(command.name), "\(command.name)")
            for word in command.words { #expect(fish.contains("-a \(word) "), "\(command.name)") }
            for option in command.options + CommandTable.global {
                #expect(zsh.contains("--\(option.name)"), "\(option.name)")
                #expect(fish.contains("-l \(option.name) "), "\(option.name)")
            }
        }
        let wrong = try CLIProcess.run(["completion", "tcsh"])
        #expect(wrong.status == 2 && wrong.stderr == "tokenvault: completion needs one of: bash, zsh, fish\n")
    }

    @Test func theManualPageDocumentsEveryCommandAndOptionAndRendersCleanly() throws {
        let page = try generated(["help", "--man"])
        #expect(page.hasPrefix(".TH TOKENVAULT 1"))
        func roff(_ text: String) -> String { text.replacingOccurrences(of: "-", with: "\\-") }
        for command in CommandTable.commands {
            #expect(page.contains(".B \(roff(command.name))"), "\(command.name)")
            for option in command.options + CommandTable.global {
                #expect(page.contains("\\fB\\-\\-\(roff(option.name))\\fR"), "\(option.name)")
            }
        }
        let directory = TemporaryDirectory()
        let file = directory.file("tokenvault.1")
        try page.write(to: file, atomically: true, encoding: .utf8)
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") {
            let rendered = try runProgram("/usr/bin/groff", ["-man", "-Tutf8", "-ww", "-z", file.path])
            #expect(rendered.status == 0 && rendered.stderr.isEmpty, "\(rendered.stderr)")
        }
        let overview = try generated(["help"])
        #expect(overview.contains("COMMANDS:") && overview.contains("completion"))
    }
}
