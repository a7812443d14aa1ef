import Foundation
import TestSupport
import Testing

/// The real `tokenvault` binary through its commands, success and error paths, plain and `--json`:
/// no output shows the passphrase, a token or a secret value, except the commands that exist to
/// print one (`show --reveal`, `token`, `secret get`), and those print only what was asked.
@Suite struct CLISecretHygieneTests {
    static let passphrase = "PP-cli-hygiene-83b1d5f7"
    static let accessToken = "AT-cli-hygiene-2c4e6a8b"
    static let refreshToken = "RT-cli-hygiene-9d1f3b5c"
    static let deviceSecret = "DS-cli-hygiene-4a6c8e0d"
    static let clientSecret = "CS-cli-hygiene-7e9a1c3f"
    static let secretValue = "SV-cli-hygiene-5b7d9f1a"
    static let wrongPassphrase = "PP-cli-wrong-6f8b0d2e"
    static let all = [passphrase, accessToken, refreshToken, deviceSecret, clientSecret, secretValue, wrongPassphrase]

    @Test func noCommandPrintsASecretUnlessAskedTo() throws {
        let vault = try CLIVault(passphrase: Self.passphrase)
        let clientSecretFile = vault.directory.file("client-secret")
        try writePrivateFile(Self.clientSecret, to: clientSecretFile)
        let wrong = vault.directory.file("wrong")
        try writePrivateFile(Self.wrongPassphrase + "\n", to: wrong)
        let response = String(
            decoding: try JSONSerialization.data(withJSONObject: [
                "access_token": Self.accessToken, "token_type": "Bearer", "expires_in": 3600,
                "refresh_token": Self.refreshToken, "device_secret": Self.deviceSecret,
            ]), as: UTF8.self)
        let issuer = ["--issuer", "https://issuer.example.com", "--client-id", "cli"]
        var checked = 0
        func quiet(
            _ arguments: [String], input: String = "", unlock: Bool = true,
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> CLIProcess.Result {
            let result = unlock ? try vault.run(arguments, input: input) : try CLIProcess.run(arguments, input: input)
            for secret in Self.all where (result.stdout + result.stderr).contains(secret) {
                Issue.record("'\(arguments.joined(separator: " "))' printed \(secret)", sourceLocation: sourceLocation)
            }
            checked += 1
            return result
        }

        let imported = try quiet(
            ["import", "-", "--client-secret-file", clientSecretFile.path, "--json"] + issuer, input: response)
        try imported.expectSuccess()
        let id = try #require((try imported.json() as? [String: Any])?["id"] as? String)
        try quiet(["import", "-", "--client-secret-file", clientSecretFile.path] + issuer, input: response)
            .expectSuccess()
        try quiet(["secret", "set", "api"], input: Self.secretValue).expectSuccess()
        for arguments in [
            ["list"], ["list", "--json"], ["show", id], ["show", id, "--json"], ["show", "default"], ["default"],
            ["default", "--json"], ["tag", id, "team=core"], ["secret", "list"], ["secret", "list", "--json"],
            ["verify"], ["verify", "--json"], ["keyslot", "list"], ["keyslot", "list", "--json"],
            ["backup", vault.directory.file("backup.db").path],
        ] {
            try quiet(arguments).expectSuccess()
        }
        // Error paths: wrong passphrase (plain and JSON), bad input, missing items, usage errors.
        for arguments in [
            ["secret", "get", "api", "--vault", vault.path, "--passphrase-file", wrong.path],
            ["show", id, "--json", "--vault", vault.path, "--passphrase-file", wrong.path],
            ["token", "--vault", vault.path, "--passphrase-file", wrong.path],
        ] {
            #expect(try quiet(arguments, unlock: false).status == 3)
        }
        #expect(try quiet(["import", "-"] + issuer, input: #"{"access_token":"\#(Self.accessToken)"}"#).status == 6)
        #expect(
            try quiet(
                ["import", "-"] + issuer,
                input: #"{"access_token":"x","token_type":"Bearer","id_token":"\#(Self.refreshToken)"}"#
            )
            .status == 6)
        #expect(try quiet(["secret", "get", "missing"]).status == 5)
        #expect(try quiet(["show", "no-such-id", "--json"]).status == 5)
        #expect(try quiet(["show"]).status == 2)
        #expect(try quiet(["--help"], unlock: false).status == 0)
        try setFileMode(0o644, URL(fileURLWithPath: vault.path))
        #expect(try quiet(["secret", "list"]).status == 8)
        try setFileMode(0o600, URL(fileURLWithPath: vault.path))

        // The commands that print a secret print exactly the one asked for.
        let token = try vault.run(["token", id])
        #expect(token.stdout == Self.accessToken + "\n")
        let value = try vault.run(["secret", "get", "api"])
        #expect(value.stdout == Self.secretValue)
        let revealed = try vault.run(["show", id, "--json", "--reveal"])
        let fields = try #require(try revealed.json() as? [String: Any])
        #expect(fields["accessToken"] as? String == Self.accessToken)
        #expect(fields["refreshToken"] as? String == Self.refreshToken)
        for result in [token, value, revealed] {
            for secret in [Self.passphrase, Self.clientSecret, Self.wrongPassphrase] {
                #expect(!(result.stdout + result.stderr).contains(secret))
            }
        }
        #expect(!value.stdout.contains(Self.accessToken) && !token.stdout.contains(Self.secretValue))
        try quiet(["rm", id]).expectSuccess()
        #expect(checked == 29)  // and the three that reveal, above
    }
}
