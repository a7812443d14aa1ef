import Foundation
import TestSupport
import Testing

@Suite struct CLIParsingTests {
    @Test func everyCommandHasHelpFromTheTable() throws {
        let overview = try CLIProcess.run(["--help"])
        #expect(overview.status == 0)
        let commands = overview.stdout.split(separator: "\n", omittingEmptySubsequences: false).drop {
            !$0.hasPrefix("COMMANDS:")
        }.dropFirst()
            .prefix { !$0.isEmpty }.map { line in
                line.trimmingCharacters(in: .whitespaces).components(separatedBy: "  ").first ?? ""
            }
        #expect(commands.count >= 20)
        for command in commands {
            let help = try CLIProcess.run(command.split(separator: " ").map(String.init) + ["--help"])
            #expect(help.status == 0, "\(command)")
            #expect(help.stdout.contains("USAGE: tokenvault \(command)"))
            #expect(help.stdout.contains("--vault PATH"))
        }
    }

    @Test func usageErrorsExitWith2AndOneLine() throws {
        let cases: [[String]] = [
            ["frobnicate"], ["list", "--bogus"], ["revoke"], ["list", "--vault"], ["init", "--no-passphrase=yes"],
            ["tag"], ["secret", "get"],
        ]
        for arguments in cases {
            let result = try CLIProcess.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("tokenvault: "), "\(arguments)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
        }
    }
}
