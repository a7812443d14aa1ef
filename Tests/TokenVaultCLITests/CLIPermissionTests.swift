import Foundation
import TestSupport
import Testing

/// `tokenvault` refuses a vault, key, passphrase or client-secret file other users can access, with
/// exit status 8 and the fix on one line, unless `--allow-insecure-permissions` is given.
@Suite struct CLIPermissionTests {
    @Test func aLooseVaultIsRefusedWithExitCode8UnlessAllowed() throws {
        let vault = try CLIVault()
        try vault.run(["secret", "set", "k"], input: "v").expectSuccess()
        let url = URL(fileURLWithPath: vault.path)
        try setFileMode(0o644, url)
        let refused = try vault.run(["secret", "get", "k"])
        #expect(refused.status == 8)
        #expect(
            refused.stderr
                == "tokenvault: \(vault.path) is accessible by other users; run 'chmod 600 \(vault.path)', "
                + "or pass --allow-insecure-permissions to use it anyway.\n")
        #expect(refused.stdout.isEmpty)
        #expect(try fileMode(url) == 0o644)

        let allowed = try vault.run(["secret", "get", "k", "--allow-insecure-permissions"])
        try allowed.expectSuccess()
        #expect(allowed.stdout == "v")
        #expect(try fileMode(url) == 0o644)
        try setFileMode(0o600, url)
        #expect(try vault.run(["secret", "get", "k"]).stdout == "v")
    }

    @Test func aLooseKeyFileIsRefusedWithExitCode8UnlessAllowed() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.db").path
        let keyFile = directory.file("vault.key")
        let unlock = ["--vault", path, "--key-file", keyFile.path]
        try CLIProcess.run(["init", "--no-passphrase"] + unlock).expectSuccess()
        #expect(try fileMode(keyFile) == 0o600)
        try setFileMode(0o640, keyFile)
        let refused = try CLIProcess.run(["secret", "list"] + unlock)
        #expect(refused.status == 8)
        #expect(refused.stderr.contains("chmod 600 \(keyFile.path)"))
        try CLIProcess.run(["secret", "list", "--allow-insecure-permissions"] + unlock).expectSuccess()
    }

    @Test func aLoosePassphraseFileIsRefusedWithExitCode8UnlessAllowed() throws {
        let vault = try CLIVault()
        try vault.run(["secret", "set", "k"], input: "v").expectSuccess()
        let file = URL(fileURLWithPath: vault.passphraseFile)
        try setFileMode(0o644, file)
        let refused = try vault.run(["secret", "get", "k"])
        #expect(refused.status == 8)
        #expect(refused.stderr.contains("chmod 600 \(file.path)"))
        #expect(refused.stdout.isEmpty)
        let allowed = try vault.run(["secret", "get", "k", "--allow-insecure-permissions"])
        try allowed.expectSuccess()
        #expect(allowed.stdout == "v")
        #expect(try fileMode(file) == 0o644)
    }

    @Test func aLooseClientSecretFileIsRefusedWithExitCode8BeforeAnyRequest() throws {
        let vault = try CLIVault()
        let secretFile = vault.directory.file("client-secret")
        try writePrivateFile("CS-loose-file", to: secretFile)
        try setFileMode(0o604, secretFile)
        // Port 9 (discard) on loopback: a request, if one were made, fails as a network error (6).
        let login = [
            "login", "--issuer", "http://127.0.0.1:9", "--client-id", "c", "--client-secret-file", secretFile.path,
            "--grant", "client-credentials",
        ]
        let refused = try vault.run(login)
        #expect(refused.status == 8)
        #expect(refused.stderr.contains("chmod 600 \(secretFile.path)"))
        #expect(!refused.stderr.contains("CS-loose-file"))
        #expect(try vault.run(login + ["--allow-insecure-permissions"]).status == 6)
    }

    @Test func theFlagAndTheExitCodeAreInTheHelp() throws {
        let overview = try CLIProcess.run(["--help"])
        #expect(overview.stdout.contains("--allow-insecure-permissions"))
        #expect(overview.stdout.contains("8 a file others can access"))
        #expect(try CLIProcess.run(["verify", "--help"]).stdout.contains("--allow-insecure-permissions"))
    }
}
