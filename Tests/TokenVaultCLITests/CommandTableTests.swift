import Foundation
import TestSupport
import Testing
import TokenVault

@testable import TokenVaultCLI

/// The command table against what the handlers really read, in process.
@Suite struct CommandTableTests {
    let directory = TemporaryDirectory()

    /// The names `command`'s handler asked for, run with `values` and `flags` on a vault that
    /// does not exist (so no handler opens one: the process-wide `Credential` storage stays
    /// untouched), and that are not in the table for it.
    func undeclaredReads(of command: CommandSpec, variant: Int) async throws -> (
        read: Set<String>, undeclared: Set<String>
    ) {
        let declared = command.options + CommandTable.global
        var parsed = ParsedArguments()
        let passphrase = directory.file("passphrase")
        try writePrivateFile("table test passphrase\n", to: passphrase)
        parsed.values["vault"] = [directory.file("vault-\(command.words.joined(separator: "-"))-\(variant).db").path]
        parsed.values["passphrase-file"] = [passphrase.path]
        if variant > 0 {
            for option in command.options {
                switch option.value {
                case nil: if variant == 2 { parsed.flags.insert(option.name) }
                case "SECONDS": parsed.values[option.name] = ["1"]
                // `=` keeps the value a valid KEY=VALUE too; the paths never exist.
                default: parsed.values[option.name] = [option.choices?.first ?? directory.file("x=\(option.name)").path]
                }
            }
        }
        // Positionals that are never stdin (`-`) and name nothing that exists.
        parsed.positionals = [directory.file("missing").path, "key=value"]
        let recorder = OptionReadRecorder()
        parsed.recorder = recorder
        _ = try? await command.run(parsed, CommandContext(arguments: parsed))
        let read = recorder.read
        return (read, read.subtracting(declared.map(\.name)))
    }

    @Test func everyOptionAHandlerReadsIsInTheCommandTable() async throws {
        var reads: [String: Set<String>] = [:]
        for command in CommandTable.commands {
            for variant in 0...2 {
                let (read, undeclared) = try await undeclaredReads(of: command, variant: variant)
                #expect(undeclared.isEmpty, "'\(command.name)' reads options the table lacks: \(undeclared.sorted())")
                reads[command.name, default: []].formUnion(read)
            }
        }
        // The runs get far enough to read the options that matter, so the check above means something.
        #expect(reads["init"]?.isSuperset(of: ["kdf", "no-passphrase", "vault"]) == true)
        #expect(
            reads["login"]?.isSuperset(of: ["browser", "timeout", "no-open", "grant", "tag", "accessibility", "issuer"])
                == true)
        #expect(reads["revoke"]?.contains("type") == true)
        #expect(reads["list"]?.isSuperset(of: ["where", "claim"]) == true)
        #expect(reads["secret import"]?.isSuperset(of: ["format", "replace"]) == true)
        #expect(reads["secret export"]?.isSuperset(of: ["format", "output", "force"]) == true)
    }

    @Test func aHandlerReadingAnOptionTheTableLacksIsCaught() async throws {
        let typo = CommandSpec(
            words: ["typo"], arguments: "", summary: "reads a misspelt option",
            options: [OptionSpec(name: "grant", value: "GRANT", help: "")]
        ) { arguments, _ in _ = arguments.value("grnat") }
        let (_, undeclared) = try await undeclaredReads(of: typo, variant: 1)
        #expect(undeclared == ["grnat"])
    }

    @Test func anEnumeratedOptionNamesItsValuesInHelpAndError() throws {
        let spec = try #require(CommandTable.commands.first { $0.name == "init" }?.options.first { $0.name == "kdf" })
        #expect(spec.choices == ["interactive", "moderate", "sensitive"])
        #expect(spec.help.contains("one of: interactive, moderate, sensitive; default: moderate"))
        let cases: [([String], String)] = [
            (["init", "--kdf", "fast"], "--kdf must be one of: interactive, moderate, sensitive"),
            (["login", "--grant=implicit"], "--grant must be one of: device, client-credentials, password"),
            (["revoke", "x", "--type", "id"], "--type must be one of: all, access, refresh, device"),
            (
                ["import", "--accessibility", "always"],
                "--accessibility must be one of: " + Accessibility.allCases.map(\.rawValue).joined(separator: ", ")
            ),
        ]
        for (arguments, message) in cases {
            let result = try CLIProcess.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr == "tokenvault: \(message)\n")
            let help = try CLIProcess.run([arguments[0], "--help"])
            let listed = message.components(separatedBy: "must be ").last ?? ""
            #expect(help.stdout.contains(listed), "\(arguments[0]) --help lacks '\(listed)'")
        }
    }
}
