import Foundation
import TestSupport
import Testing

@Suite struct CLIVaultTests {
    @Test func wrongPassphraseMissingVaultAndIntegrityHaveTheirExitCodes() throws {
        let vault = try CLIVault()
        #expect(try fileMode(URL(fileURLWithPath: vault.path)) == 0o600)
        let wrong = vault.directory.file("wrong")
        try writePrivateFile("nope\n", to: wrong)
        let refused = try CLIProcess.run(["verify", "--vault", vault.path, "--passphrase-file", wrong.path])
        #expect(refused.status == 3)
        #expect(refused.stderr == "tokenvault: The passphrase or key file is wrong.\n")
        #expect(!refused.stderr.contains("nope"))
        let missing = try CLIProcess.run([
            "verify", "--vault", vault.directory.file("none.db").path, "--passphrase-file", vault.passphraseFile,
        ])
        #expect(missing.status == 5)
        #expect(try CLIProcess.run(["init"] + vault.unlock).status == 1)  // exists
        try vault.run(["secret", "set", "k"], input: "v").expectSuccess()
        try RawVaultFile(URL(fileURLWithPath: vault.path)).execute("UPDATE records SET version = version + 5")
        #expect(try vault.run(["verify"]).status == 7)
    }

    @Test func passphraseSourcesEnvironmentAndDescriptor() throws {
        let vault = try CLIVault(passphrase: "env and fd")
        let viaEnvironment = try CLIProcess.run(
            ["secret", "list", "--vault", vault.path], environment: ["TOKENVAULT_PASSPHRASE": "env and fd"])
        #expect(viaEnvironment.status == 0)
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/bash")
        shell.arguments = [
            "-c",
            "'\(CLIProcess.executable.path)' secret list --vault '\(vault.path)' --passphrase-fd 3 3<'\(vault.passphraseFile)'",
        ]
        try shell.run()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0)
        let viaPath = try CLIProcess.run(
            ["secret", "list", "--passphrase-file", vault.passphraseFile], environment: ["TOKENVAULT_PATH": vault.path])
        #expect(viaPath.status == 0)
    }

    @Test func passwdKeySlotsVerifyAndBackup() throws {
        let vault = try CLIVault()
        try vault.run(["secret", "set", "api"], input: "value-1").expectSuccess()
        let newPassphrase = vault.directory.file("new-passphrase")
        try writePrivateFile("the new one\n", to: newPassphrase)
        let changed = try vault.run(["passwd", "--new-passphrase-file", newPassphrase.path])
        try changed.expectSuccess()
        #expect(changed.stderr.isEmpty, "progress reached a pipe: \(changed.stderr)")
        #expect(try vault.run(["secret", "list"]).status == 3)
        let withNew = ["--vault", vault.path, "--passphrase-file", newPassphrase.path]
        #expect(try CLIProcess.run(["secret", "get", "api"] + withNew).stdout == "value-1")

        let keyFile = vault.directory.file("worker.key")
        try CLIProcess.run(["keyslot", "add", "--new-key-file", keyFile.path, "--kdf", "interactive"] + withNew)
            .expectSuccess()
        let slots = try CLIProcess.run(["keyslot", "list", "--json"] + withNew)
        #expect((try slots.json() as? [[String: Any]])?.count == 2)
        let byKeyFile = try CLIProcess.run(["secret", "get", "api", "--vault", vault.path, "--key-file", keyFile.path])
        #expect(byKeyFile.stdout == "value-1")
        try CLIProcess.run(["keyslot", "remove", "--slot-key-file", keyFile.path] + withNew).expectSuccess()
        #expect(
            try CLIProcess.run(["secret", "get", "api", "--vault", vault.path, "--key-file", keyFile.path]).status == 3)

        let report = try CLIProcess.run(["verify", "--json"] + withNew)
        #expect((try report.json() as? [String: Any])?["records"] as? Int == 1)
        let copy = vault.directory.file("backup.db")
        try CLIProcess.run(["backup", copy.path] + withNew).expectSuccess()
        #expect(try fileMode(copy) == 0o600)
        #expect(
            try CLIProcess.run(["secret", "get", "api", "--vault", copy.path, "--passphrase-file", newPassphrase.path])
                .stdout == "value-1")
        #expect(try CLIProcess.run(["backup", copy.path] + withNew).status == 1)  // never overwrites
    }

    @Test func secretsSetGetListRemove() throws {
        let vault = try CLIVault()
        try vault.run(["secret", "set", "stripe"], input: "sk_live_123").expectSuccess()
        let valueFile = vault.directory.file("value")
        try Data("from-file".utf8).write(to: valueFile)
        try vault.run(["secret", "set", "github", "--value-file", valueFile.path]).expectSuccess()
        #expect(try vault.run(["secret", "get", "stripe"]).stdout == "sk_live_123")
        #expect(try vault.run(["secret", "list", "--json"]).json() as? [String] == ["github", "stripe"])
        let stored = try vault.run(["secret", "set", "x"], input: "shhh")
        #expect(!stored.stdout.contains("shhh") && !stored.stderr.contains("shhh"))
        try vault.run(["secret", "rm", "stripe"]).expectSuccess()
        let gone = try vault.run(["secret", "get", "stripe"])
        #expect(gone.status == 5)
        #expect(try vault.run(["secret", "rm", "stripe"]).status == 5)
    }

    @Test func theNoEchoPromptUnderAPseudoTerminal() throws {
        let vault = try CLIVault(passphrase: "typed at the prompt")
        let terminal = try PseudoTerminal(
            command: "'\(CLIProcess.executable.path)' secret list --vault '\(vault.path)'")
        try terminal.waitFor("Passphrase for vault.db:")
        terminal.type("first wrong guess")
        // Each answer is typed only once the prompt is back (echo is off from then on); typing on
        // "wrong passphrase" raced the prompt on a loaded machine and the text was echoed.
        try terminal.waitFor("Wrong passphrase, try again.")
        try terminal.waitFor("Passphrase for vault.db:", occurrences: 2)
        terminal.type("second wrong guess")
        try terminal.waitFor("Wrong passphrase, try again.", occurrences: 2)
        try terminal.waitFor("Passphrase for vault.db:", occurrences: 3)
        terminal.type("typed at the prompt")
        let screen = try terminal.waitForExit()
        #expect(screen.contains("EXIT=0"))
        for typed in ["first wrong guess", "second wrong guess", "typed at the prompt"] {
            #expect(!screen.contains(typed), "echoed: \(typed)")
        }
        // Three wrong tries end with exit status 3.
        let failing = try PseudoTerminal(command: "'\(CLIProcess.executable.path)' secret list --vault '\(vault.path)'")
        for attempt in 1...3 {
            try failing.waitFor("Passphrase for vault.db:", occurrences: attempt)
            failing.type("wrong \(attempt)")
        }
        #expect(try failing.waitForExit().contains("EXIT=3"))
    }
}

extension CLIProcess.Result {
    func expectSuccess(sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(status == 0, "exit \(status): \(stderr)", sourceLocation: sourceLocation)
    }
}
