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

    @Test func globalOptionsWorkBeforeOrAfterTheCommand() throws {
        let directory = TemporaryDirectory()
        let vault = directory.file("vault.db").path
        let passphrase = directory.file("passphrase")
        try writePrivateFile("global options passphrase\n", to: passphrase)
        let created = try CLIProcess.run([
            "--vault", vault, "--passphrase-file=\(passphrase.path)", "init", "--kdf", "interactive",
        ])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(FileManager.default.fileExists(atPath: vault))
        let arrangements: [[String]] = [
            ["--vault", vault, "--passphrase-file", passphrase.path, "--json", "secret", "list"],
            ["--vault", vault, "secret", "list", "--passphrase-file", passphrase.path, "--json"],
            ["secret", "list", "--vault=\(vault)", "--json", "--passphrase-file", passphrase.path],
        ]
        for arguments in arrangements {
            let listed = try CLIProcess.run(arguments)
            #expect(listed.status == 0, "\(arguments): \(listed.stderr)")
            #expect((try? listed.json()) as? [Any] != nil, "\(arguments): \(listed.stdout)")
        }
        let help = try CLIProcess.run(["--vault", vault, "--help", "init"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: tokenvault init"))
    }

    @Test func misplacedOrUnknownOptionsAreUsageErrors() throws {
        let cases: [([String], String)] = [
            (["--bogus", "list"], "tokenvault: unknown option --bogus before the command"),
            (["--kdf", "interactive", "init"], "tokenvault: unknown option --kdf before the command"),
            (["--vault", "a.db", "list", "--vault", "b.db"], "tokenvault: --vault given twice"),
            (["--vault", "a.db"], "tokenvault: missing command; see tokenvault --help"),
            (["--vault"], "tokenvault: --vault needs a value"),
            (["--json=yes", "list"], "tokenvault: --json takes no value"),
        ]
        for (arguments, message) in cases {
            let result = try CLIProcess.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix(message), "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
        }
    }
}
