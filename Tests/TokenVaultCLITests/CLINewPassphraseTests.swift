import Foundation
import TestSupport
import Testing

/// `passwd` and `keyslot add` take the new passphrase only from `--new-passphrase-file` or the
/// terminal: the current one, from `--passphrase-file`, `--passphrase-fd` or
/// `TOKENVAULT_PASSPHRASE`, only opens the vault.
@Suite struct CLINewPassphraseTests {
    /// Asserts that `vault` still has exactly one key slot, opened by its original passphrase.
    func expectUnchanged(_ vault: CLIVault, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let slots = try vault.run(["keyslot", "list", "--json"])
        #expect(slots.status == 0, "\(slots.stderr)", sourceLocation: sourceLocation)
        #expect((try? slots.json() as? [[String: Any]])?.count == 1, sourceLocation: sourceLocation)
    }

    @Test func withoutATerminalOrANewPassphraseFileTheyFailAsUsageErrors() throws {
        let vault = try CLIVault(passphrase: "the current one")
        let viaEnvironment = ["--vault", vault.path]
        let environment = ["TOKENVAULT_PASSPHRASE": "the current one"]
        let commands = [
            (["passwd"], "--new-passphrase-file"), (["keyslot", "add", "--kdf", "interactive"], "--new-key-file"),
        ]
        for (command, advice) in commands {
            for (options, variables) in [(vault.unlock, [:]), (viaEnvironment, environment)] {
                let result = try CLIProcess.runWithoutTerminal(command + options, environment: variables)
                #expect(result.status == 2, "\(command) \(options): exit \(result.status), \(result.stderr)")
                #expect(result.stderr.contains("no terminal to ask for the new passphrase"), "\(result.stderr)")
                #expect(result.stderr.contains(advice))
                #expect(!result.stderr.contains("the current one") && result.stdout.isEmpty)
            }
        }
        // Checked before the vault is opened: a wrong current passphrase is never even tried.
        let wrong = try CLIProcess.runWithoutTerminal(
            ["passwd", "--vault", vault.path], environment: ["TOKENVAULT_PASSPHRASE": "a wrong guess"])
        #expect(wrong.status == 2, "\(wrong.stderr)")
        try expectUnchanged(vault)
        // Still opened by the current passphrase alone, through either source.
        #expect(try CLIProcess.run(["secret", "list"] + viaEnvironment, environment: environment).status == 0)
    }

    @Test func aNewPassphraseFileIsUsedWithoutATerminal() throws {
        let vault = try CLIVault(passphrase: "the current one")
        let newPassphrase = vault.directory.file("new")
        try writePrivateFile("the replacement\n", to: newPassphrase)
        try CLIProcess.runWithoutTerminal(
            ["passwd", "--new-passphrase-file", newPassphrase.path, "--vault", vault.path],
            environment: ["TOKENVAULT_PASSPHRASE": "the current one"]
        ).expectSuccess()
        #expect(try vault.run(["secret", "list"]).status == 3)
        let withNew = ["secret", "list", "--vault", vault.path, "--passphrase-file", newPassphrase.path]
        #expect(try CLIProcess.run(withNew).status == 0)
    }

    /// On a terminal the new passphrase is asked twice without echo, even though the current one
    /// came from the environment (`passwd`) or a file (`keyslot add`).
    @Test func onATerminalTheNewPassphraseIsAsked() throws {
        let vault = try CLIVault(passphrase: "the current one")
        let binary = "'\(CLIProcess.executable.path)'"
        let passwd = try PseudoTerminal(
            command: "TOKENVAULT_PASSPHRASE='the current one' \(binary) passwd --vault '\(vault.path)'")
        try passwd.waitFor("New passphrase:")
        passwd.type("typed new passphrase")
        try passwd.waitFor("Repeat the passphrase:")
        passwd.type("typed new passphrase")
        let screen = try passwd.waitForExit()
        #expect(screen.contains("EXIT=0"), "\(screen)")
        #expect(!screen.contains("typed new passphrase"))
        #expect(screen.contains("Re-keying the vault"), "no progress line on the terminal: \(screen)")
        #expect(try vault.run(["secret", "list"]).status == 3, "the current passphrase is revoked")
        let typed = vault.directory.file("typed")
        try writePrivateFile("typed new passphrase\n", to: typed)
        let withTyped = ["--vault", vault.path, "--passphrase-file", typed.path]
        #expect(try CLIProcess.run(["secret", "list"] + withTyped).status == 0)

        let add = try PseudoTerminal(
            command: "\(binary) keyslot add --kdf interactive --vault '\(vault.path)' --passphrase-file '\(typed.path)'"
        )
        try add.waitFor("New passphrase:")
        add.type("second slot passphrase")
        try add.waitFor("Repeat the passphrase:")
        add.type("second slot passphrase")
        #expect(try add.waitForExit().contains("EXIT=0"))
        let slots = try CLIProcess.run(["keyslot", "list", "--json"] + withTyped)
        #expect((try slots.json() as? [[String: Any]])?.count == 2)
        #expect(
            try CLIProcess.run(
                ["secret", "list", "--vault", vault.path],
                environment: ["TOKENVAULT_PASSPHRASE": "second slot passphrase"]
            ).status == 0)

        let differing = try PseudoTerminal(
            command: "\(binary) passwd --vault '\(vault.path)' --passphrase-file '\(typed.path)'")
        try differing.waitFor("New passphrase:")
        differing.type("one thing")
        try differing.waitFor("Repeat the passphrase:")
        differing.type("another thing")
        let refused = try differing.waitForExit()
        #expect(refused.contains("the passphrases differ") && refused.contains("EXIT=2"), "\(refused)")
        #expect(try CLIProcess.run(["secret", "list"] + withTyped).status == 0, "unchanged")
    }
}
