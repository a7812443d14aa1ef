import Foundation
import TestSupport
import Testing

/// `tokenvault` refuses a vault or key file other users can access, with exit status 8 and the
/// fix on one line, unless `--allow-insecure-permissions` is given.
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

    @Test func theFlagAndTheExitCodeAreInTheHelp() throws {
        let overview = try CLIProcess.run(["--help"])
        #expect(overview.stdout.contains("--allow-insecure-permissions"))
        #expect(overview.stdout.contains("8 a file others can access"))
        #expect(try CLIProcess.run(["verify", "--help"]).stdout.contains("--allow-insecure-permissions"))
    }
}
