import Foundation
import TestSupport
import Testing
import TokenVault

/// Runs any program to completion with `input` on stdin and exactly `environment` plus `PATH`.
func runProgram(
    _ executable: String, _ arguments: [String], input: String = "", environment: [String: String] = [:]
) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = environment.merging(["PATH": "/usr/local/bin:/usr/bin:/bin"]) { given, _ in given }
    let (stdin, stdout, stderr) = (Pipe(), Pipe(), Pipe())
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    let errorOutput = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (
        process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errorOutput, as: UTF8.self)
    )
}

/// `git-credential` under the real `git credential`, in a throwaway repository with its own HOME.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git"), "needs git (make deps)"))
struct CLIGitCredentialTests {
    let vault: CLIVault
    let home = TemporaryDirectory()
    var repository: String { home.file("repo").path }

    init() throws {
        vault = try CLIVault()
        let environment = gitEnvironment
        _ = try runProgram("/usr/bin/git", ["init", "-q", repository], environment: environment)
        let helper = ([CLIProcess.executable.path] + vault.unlock + ["git-credential"]).joined(separator: " ")
        let configured = try runProgram(
            "/usr/bin/git", ["-C", repository, "config", "credential.helper", helper], environment: environment)
        #expect(configured.status == 0, "\(configured.stderr)")
    }

    var gitEnvironment: [String: String] {
        ["HOME": home.url.path, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"]
    }

    /// `git credential <action>` in the repository.
    func git(_ action: String, _ fields: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try runProgram(
            "/usr/bin/git", ["-C", repository, "credential", action],
            input: fields.joined(separator: "\n") + "\n\n", environment: gitEnvironment)
    }

    func field(_ name: String, in output: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix("\(name)=") }.map { String($0.dropFirst(name.count + 1)) }
    }

    @Test func gitStoresFillsAndErasesAPasswordThroughTheHelper() throws {
        let password = "pw-\(UUID().uuidString)"
        let server = ["protocol=https", "host=git.example.com"]
        #expect(try git("fill", server).status != 0, "nothing stored yet, so git must fail without a prompt")
        let approved = try git("approve", server + ["username=alice", "password=\(password)"])
        #expect(approved.status == 0, "\(approved.stderr)")
        let filled = try git("fill", server)
        #expect(filled.status == 0, "\(filled.stderr)")
        #expect(field("username", in: filled.stdout) == "alice")
        let same = field("password", in: filled.stdout) == password
        #expect(same, "git did not get the stored password")
        // Another host is not served.
        #expect(try git("fill", ["protocol=https", "host=other.example.com"]).status != 0)
        #expect(try git("reject", server + ["username=alice", "password=\(password)"]).status == 0)
        #expect(try git("fill", server).status != 0, "the rejected password is gone")
    }

    @Test func aTaggedTokenServesItsHostAndGitKeepsNoCopyOfIt() throws {
        let response = String(decoding: TestTokens.response(subject: "git@example.com"), as: UTF8.self)
        let imported = try vault.run(
            [
                "import", "-", "--issuer", "https://issuer.example.com", "--client-id", "cli", "--json", "--tag",
                "git-host=git.example.org", "--tag", "git-username=x-access-token",
            ], input: response)
        try imported.expectSuccess()
        let id = try #require((try imported.json() as? [String: Any])?["id"] as? String)
        let accessToken = try vault.run(["token", id]).stdout.trimmingCharacters(in: .newlines)
        let server = ["protocol=https", "host=git.example.org"]
        let filled = try git("fill", server)
        #expect(filled.status == 0, "\(filled.stderr)")
        #expect(field("username", in: filled.stdout) == "x-access-token")
        let served = field("password", in: filled.stdout) == accessToken
        #expect(served, "git did not get the access token")
        #expect(try git("approve", server + ["username=x-access-token", "password=\(accessToken)"]).status == 0)
        // Never over plain http.
        #expect(try git("fill", ["protocol=http", "host=git.example.org"]).status != 0)
        // With the token gone nothing answers: approve stored no copy of it.
        try vault.run(["rm", id]).expectSuccess()
        #expect(try git("fill", server).status != 0)
    }

    @Test func theHelperIgnoresUnknownAttributesAndOperationsAndPrefersAPathEntry() throws {
        let helper = { (arguments: [String], input: String) in
            try runProgram(CLIProcess.executable.path, self.vault.unlock + ["git-credential"] + arguments, input: input)
        }
        let base = "protocol=https\nhost=git.example.net\n"
        #expect(try helper(["store"], base + "username=host-user\npassword=host-pw\n\n").status == 0)
        #expect(
            try helper(["store"], base + "path=team/repo.git\nusername=repo-user\npassword=repo-pw\n\n").status == 0)
        let withUnknown = try helper(
            ["get"], "capability[]=authtype\nwwwauth[]=Basic realm=\"x\"\n" + base + "path=team/repo.git\n\n")
        #expect(withUnknown.status == 0, "\(withUnknown.stderr)")
        #expect(field("username", in: withUnknown.stdout) == "repo-user")
        let otherPath = try helper(["get"], base + "path=team/other.git\n\n")
        #expect(field("username", in: otherPath.stdout) == "host-user")
        let byURL = try helper(["get"], "url=https://git.example.net/team/repo.git\n\n")
        #expect(field("username", in: byURL.stdout) == "repo-user")
        let unknown = try helper(["frobnicate"], base + "\n")
        #expect(unknown.status == 0 && unknown.stdout.isEmpty && unknown.stderr.isEmpty)
        #expect(!withUnknown.stderr.contains("pw"))
    }
}

/// `docker-credential-tokenvault`: the real binary, through a link of that name, over stdin/stdout.
@Suite struct CLIDockerCredentialTests {
    let vault: CLIVault
    let helper: String

    init() throws {
        vault = try CLIVault(passphrase: "docker helper passphrase")
        helper = vault.directory.file("docker-credential-tokenvault").path
        try FileManager.default.createSymbolicLink(atPath: helper, withDestinationPath: CLIProcess.executable.path)
    }

    func docker(_ operation: String, _ input: String) throws -> (status: Int32, stdout: String, stderr: String) {
        try runProgram(
            helper, [operation], input: input,
            environment: ["TOKENVAULT_PATH": vault.path, "TOKENVAULT_PASSPHRASE": "docker helper passphrase"])
    }

    @Test func storeGetListEraseAsDockerCallsThem() throws {
        let server = "https://registry.example.com"
        let missing = try docker("get", server)
        #expect(missing.status == 1)
        #expect(missing.stdout == "credentials not found in native keychain\n")
        let secret = "dckr_pat_\(UUID().uuidString)"
        let stored = try docker("store", #"{"ServerURL":"\#(server)","Username":"alice","Secret":"\#(secret)"}"#)
        #expect(stored.status == 0 && stored.stdout.isEmpty, "\(stored.stderr)")
        let got = try docker("get", server + "\n")
        #expect(got.status == 0, "\(got.stderr)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(got.stdout.utf8)) as? [String: String])
        #expect(answer["ServerURL"] == server && answer["Username"] == "alice")
        let same = answer["Secret"] == secret
        #expect(same, "get did not return the stored secret")
        let listed = try docker("list", "")
        #expect(
            try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: String] == [server: "alice"])
        #expect(!listed.stdout.contains(secret))
        #expect(try docker("erase", server).status == 0)
        #expect(try docker("get", server).stdout == "credentials not found in native keychain\n")
        let erasedAgain = try docker("erase", server)
        #expect(erasedAgain.status == 1 && erasedAgain.stdout == "credentials not found in native keychain\n")
    }

    @Test func badInputIsAUsageError() throws {
        #expect(try docker("store", "not json").status == 2)
        let unknown = try docker("frobnicate", "")
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "tokenvault: docker-credential needs one of: get, store, erase, list\n")
    }
}
