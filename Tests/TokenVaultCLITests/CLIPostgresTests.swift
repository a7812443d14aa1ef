import Foundation
import TestSupport
import Testing

/// The real `tokenvault` binary with `--vault postgresql://...`: every command goes to a vault in a
/// database of the throwaway test server, file-only commands refuse it with a usage error, and the
/// URL's password is never printed.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipComment))
struct CLIPostgresTests {
    /// A vault passphrase file in a temporary folder.
    struct Passphrase {
        let directory = TemporaryDirectory()
        var path: String { directory.file("passphrase").path }

        init() throws {
            try writePrivateFile("cli postgres passphrase\n", to: URL(fileURLWithPath: path))
        }
    }

    /// Runs `arguments` and records an issue if its output shows `password`.
    static func run(
        _ arguments: [String], input: String = "", environment: [String: String] = [:], hiding password: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> CLIProcess.Result {
        let result = try CLIProcess.run(arguments, input: input, environment: environment)
        #expect(
            !(result.stdout + result.stderr).contains(password),
            "'\(arguments.first ?? "")' printed the connection password", sourceLocation: sourceLocation)
        return result
    }

    @Test func commandsUseTheDatabaseAndAnotherProcessSeesTheSecret() throws {
        let (url, password) = try PostgresTestServer.makeDatabaseURL()
        let passphrase = try Passphrase()
        let unlock = ["--vault", url, "--passphrase-file", passphrase.path]

        let created = try Self.run(["init", "--kdf", "interactive"] + unlock, hiding: password)
        try created.expectSuccess()
        #expect(created.stdout.contains("PostgreSQL vault") && created.stdout.contains("password=***"))
        #expect(try Self.run(["init", "--kdf", "interactive"] + unlock, hiding: password).status != 0)

        try Self.run(["secret", "set", "api"] + unlock, input: "value-1", hiding: password).expectSuccess()
        // Each run is its own process: this one reads what the one above wrote.
        let read = try Self.run(["secret", "get", "api"] + unlock, hiding: password)
        try read.expectSuccess()
        #expect(read.stdout == "value-1")
        // The same vault through TOKENVAULT_PATH and the postgres:// spelling.
        let shortURL = "postgres://" + url.dropFirst("postgresql://".count)
        let fromEnvironment = try Self.run(
            ["secret", "list", "--passphrase-file", passphrase.path], environment: ["TOKENVAULT_PATH": shortURL],
            hiding: password)
        try fromEnvironment.expectSuccess()
        #expect(fromEnvironment.stdout == "api\n")

        let verified = try Self.run(["verify"] + unlock, hiding: password)
        try verified.expectSuccess()
        #expect(verified.stdout.hasPrefix("OK: "))
        try Self.run(["list"] + unlock, hiding: password).expectSuccess()
    }

    @Test func backupRefusesAPostgresVault() throws {
        let (url, password) = try PostgresTestServer.makeDatabaseURL()
        let passphrase = try Passphrase()
        let unlock = ["--vault", url, "--passphrase-file", passphrase.path]
        try Self.run(["init", "--kdf", "interactive"] + unlock, hiding: password).expectSuccess()
        let copy = passphrase.directory.file("copy.db")
        let refused = try Self.run(["backup", copy.path] + unlock, hiding: password)
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("PostgreSQL"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: copy.path))
    }

    @Test func failuresNeverShowThePassword() throws {
        let (url, password) = try PostgresTestServer.makeDatabaseURL()
        let passphrase = try Passphrase()
        let unlock = ["--passphrase-file", passphrase.path]
        // No vault in the database yet.
        let missing = try Self.run(["verify", "--vault", url] + unlock, hiding: password)
        #expect(missing.status == 5, "\(missing.stderr)")
        // A wrong connection password: neither it nor the right one is printed.
        let wrongPassword = "wrongpw7c1e9a3b5d"
        let wrongURL = url.replacingOccurrences(of: password, with: wrongPassword)
        let refused = try Self.run(["init", "--kdf", "interactive", "--vault", wrongURL] + unlock, hiding: password)
        #expect(refused.status != 0)
        #expect(!(refused.stdout + refused.stderr).contains(wrongPassword), "\(refused.stderr)")
        let unreadable = try Self.run(
            ["verify", "--vault", "postgresql://u:\(password)@[::1"] + unlock, hiding: password)
        #expect(unreadable.status == 2, "\(unreadable.stderr)")
    }
}
