import Foundation
import TestSupport
import Testing
import TokenVault

/// `exec`: a real child process gets the values; the test compares digests, so no token or secret
/// reaches the test log.
@Suite struct CLIExecTests {
    static func digest(_ text: String) -> String {
        SHA256.hash(Array(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// A vault with one imported token and the secret `stripe`; returns the token's id.
    func vaultWithTokenAndSecret(_ vault: CLIVault, secret: String) throws -> String {
        let response = String(decoding: TestTokens.response(subject: "exec@example.com"), as: UTF8.self)
        let imported = try vault.run(
            ["import", "-", "--issuer", "https://issuer.example.com", "--client-id", "cli", "--json"], input: response)
        try imported.expectSuccess()
        let file = vault.directory.file("stripe-value")
        try writePrivateFile(secret, to: file)
        try vault.run(["secret", "set", "stripe", "--value-file", file.path]).expectSuccess()
        return try #require((try imported.json() as? [String: Any])?["id"] as? String)
    }

    @Test func theProgramGetsTheTokenAndTheSecretAndItsStatusIsPassedOn() throws {
        let vault = try CLIVault()
        let secret = "sk_live_\(UUID().uuidString)"
        let id = try vaultWithTokenAndSecret(vault, secret: secret)
        let accessToken = try vault.run(["token", id]).stdout.trimmingCharacters(in: .newlines)
        let result = try CLIProcess.run(
            vault.unlock + [
                "exec", "--env", "API_TOKEN=token:\(id)", "--env", "STRIPE=secret:stripe", "--",
                "/bin/sh", "-c",
                #"printf %s "$API_TOKEN" | sha256sum; printf %s "$STRIPE" | sha256sum; echo "${TOKENVAULT_PASSPHRASE-unset}"; exit 7"#,
            ])
        #expect(result.status == 7)
        let lines = result.stdout.split(separator: "\n").map { $0.split(separator: " ").first.map(String.init) ?? "" }
        #expect(lines.count == 3)
        #expect(lines.first == Self.digest(accessToken), "the token's digest differs")
        #expect(lines.dropFirst().first == Self.digest(secret), "the secret's digest differs")
        #expect(lines.last == "unset")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }

    @Test func theVaultPassphraseFromTheEnvironmentNeverReachesTheProgram() throws {
        let vault = try CLIVault(passphrase: "exec passphrase")
        _ = try vaultWithTokenAndSecret(vault, secret: "value")
        let result = try CLIProcess.run(
            [
                "exec", "--vault", vault.path, "--env", "STRIPE=secret:stripe", "--", "/bin/sh", "-c",
                #"test -z "${TOKENVAULT_PASSPHRASE+set}" && test -n "$STRIPE""#,
            ], environment: ["TOKENVAULT_PASSPHRASE": "exec passphrase"])
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func aSignalDeathIsReportedAsAShellDoes() throws {
        let vault = try CLIVault()
        _ = try vaultWithTokenAndSecret(vault, secret: "value")
        let killed = try CLIProcess.run(
            vault.unlock + ["exec", "--env", "S=secret:stripe", "--", "/bin/sh", "-c", "kill -TERM $$"])
        #expect(killed.status == 128 + SIGTERM)
        let missing = try CLIProcess.run(vault.unlock + ["exec", "--env", "S=secret:stripe", "--", "/no/such/program"])
        #expect(missing.status == 127)
        #expect(missing.stderr == "tokenvault: /no/such/program: No such file or directory\n")
    }

    /// Starts `exec` with `script` as its program and returns once the program printed `ready`,
    /// so a signal sent now finds it running.
    func startExec(_ vault: CLIVault, _ script: String) throws -> (Process, Pipe, Pipe) {
        let started = try CLIProcess.start(
            vault.unlock + ["exec", "--env", "S=secret:stripe", "--", "/bin/sh", "-c", script])
        var seen = Data()
        while !seen.contains(Data("ready\n".utf8)) {
            let chunk = started.1.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            seen.append(chunk)
        }
        return started
    }

    @Test(arguments: [("TERM", SIGTERM), ("INT", SIGINT), ("HUP", SIGHUP)])
    func aSignalSentToTokenvaultReachesTheProgramWhoseStatusIsPassedOn(name: String, signal: Int32) throws {
        let vault = try CLIVault()
        _ = try vaultWithTokenAndSecret(vault, secret: "value")
        let marker = vault.directory.file("trapped")
        // The shell waits in short `sleep`s, after each of which it runs a trap whose signal has
        // come, however late in the loop the signal lands. A blocking `read` was racy: a signal
        // that came after `echo ready` but before `read` began was taken by the shell's handler
        // and left the `read` blocked for good.
        let script = """
            trap 'echo \(name) > "\(marker.path)"; exit 7' \(name)
            echo ready
            while :; do sleep 0.05; done
            """
        let started = try startExec(vault, script)
        #expect(kill(started.0.processIdentifier, signal) == 0)
        let result = CLIProcess.finish(started)
        #expect(result.status == 7, "\(result.stderr)")
        #expect(try String(contentsOf: marker, encoding: .utf8) == "\(name)\n")
    }

    @Test func aProgramEndedByAForwardedSignalGivesItsShellStatus() throws {
        let vault = try CLIVault()
        _ = try vaultWithTokenAndSecret(vault, secret: "value")
        let started = try startExec(vault, "echo ready; exec sleep 1000")
        #expect(kill(started.0.processIdentifier, SIGTERM) == 0)
        #expect(CLIProcess.finish(started).status == 128 + SIGTERM)
    }

    /// The forwarded signals reach the program whichever thread the kernel would pick: every
    /// thread of `tokenvault` blocks them but one, which waits for them in `sigwaitinfo` (the
    /// kernel lets them through to that thread only while it waits), so no handler has to run.
    @Test func onlyTheThreadWaitingForThemAcceptsTheForwardedSignals() throws {
        let vault = try CLIVault()
        _ = try vaultWithTokenAndSecret(vault, secret: "value")
        let started = try startExec(vault, "echo ready; exec sleep 1000")
        let pid = started.0.processIdentifier
        let threads = try Self.threads(of: pid)
        #expect(kill(pid, SIGTERM) == 0)
        #expect(CLIProcess.finish(started).status == 128 + SIGTERM)

        let accepting = threads.filter { $0.blocked & Self.forwarded != Self.forwarded }
        #expect(threads.count > 2, "the pool and the waiting thread run beside the main thread")
        #expect(accepting.count == 1)
        #expect(accepting.allSatisfy { $0.syscall == Self.sigtimedwaitSyscall })
    }

    /// Outside `exec` nothing is forwarded: a signal ends a command as its default action would,
    /// and one the command was started with ignored (as `nohup` does SIGHUP) stays ignored.
    @Test func otherCommandsEndOnTheSignalsAsTheyWouldWithoutForwarding() throws {
        let vault = try CLIVault()
        for (launcher, signals) in [([], [SIGTERM]), (["/usr/bin/nohup"], [SIGHUP, SIGTERM])] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: launcher.first ?? CLIProcess.executable.path)
            process.arguments =
                launcher.map { _ in CLIProcess.executable.path } + ["secret", "set", "waiting"] + vault.unlock
            let input = Pipe()  // kept open: the command waits for the value on it
            process.standardInput = input
            process.standardOutput = Pipe()
            process.standardError = Pipe()
            try process.run()
            defer { try? input.fileHandleForWriting.close() }
            try Self.waitForTheSignalThread(of: process.processIdentifier)
            // Both pending at once, SIGHUP (the lower number) is taken first.
            for signal in signals { #expect(kill(process.processIdentifier, signal) == 0) }
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal, "\(launcher)")
            #expect(process.terminationStatus == SIGTERM, "\(launcher)")
        }
    }

    /// SIGTERM, SIGINT and SIGHUP as bits of a `/proc` signal mask.
    static let forwarded = [SIGTERM, SIGINT, SIGHUP].reduce(UInt64(0)) { $0 | 1 << UInt64($1 - 1) }

    /// Each thread of `pid`: its blocked signals and the system call it is in.
    static func threads(of pid: Int32) throws -> [(blocked: UInt64, syscall: Int?)] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").map { thread in
            let folder = "/proc/\(pid)/task/\(thread)/"
            let status = try String(contentsOfFile: folder + "status", encoding: .utf8)
            let blocked = status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") }.flatMap {
                UInt64($0.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16)
            }
            let call = try String(contentsOfFile: folder + "syscall", encoding: .utf8).split(separator: " ").first
            return (blocked: try #require(blocked), syscall: call.flatMap { Int($0) })
        }
    }

    /// Returns once a thread of `pid` waits for signals, so one sent now is taken by it rather
    /// than by the default action of a process still starting.
    static func waitForTheSignalThread(of pid: Int32) throws {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let threads = (try? threads(of: pid)) ?? []
            if threads.contains(where: { $0.syscall == sigtimedwaitSyscall }) { return }
            usleep(10_000)
        }
        Issue.record("no thread of \(pid) waited for signals")
    }

    /// `rt_sigtimedwait`, the system call behind `sigwaitinfo`, as `/proc/PID/task/TID/syscall`
    /// numbers it.
    #if arch(arm64)
        static let sigtimedwaitSyscall = 137
    #else
        static let sigtimedwaitSyscall = 128
    #endif

    @Test func badBindingsAndMissingValuesStopBeforeTheProgramRuns() throws {
        let vault = try CLIVault()
        _ = try vaultWithTokenAndSecret(vault, secret: "value")
        let marker = vault.directory.file("ran")
        let program = ["--", "/bin/sh", "-c", "touch '\(marker.path)'"]
        let cases: [([String], Int32, String)] = [
            (["--env", "TOKEN=bogus:x"], 2, "the value must be token:ID"),
            (["--env", "1BAD=secret:stripe"], 2, "'1BAD' is not a variable name"),
            (["--env", "A=secret:stripe", "--env", "A=token:default"], 2, "--env A given twice"),
            ([], 2, "exec needs at least one --env"),
            (["--env", "A=token:no-such-id"], 5, "no-such-id"),
            (["--env", "A=secret:no-such-secret"], 5, "No item is stored under this key"),
        ]
        for (options, status, message) in cases {
            // The unlock goes before the command: after `--` it would be the program's arguments.
            let result = try CLIProcess.run(vault.unlock + ["exec"] + options + program)
            #expect(result.status == status, "\(options): \(result.stderr)")
            #expect(result.stderr.hasPrefix("tokenvault: ") && result.stderr.contains(message), "\(result.stderr)")
        }
        #expect(try CLIProcess.run(vault.unlock + ["exec", "--env", "A=secret:stripe"]).status == 2)
        #expect(!FileManager.default.fileExists(atPath: marker.path))
    }
}

/// `exec` against the real server: an expiring token is refreshed first.
@Suite(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
struct CLIExecRefreshTests {
    @Test func anExpiringTokenIsRefreshedBeforeTheProgramGetsIt() async throws {
        let server = try AuthorizationServer()
        let vault = try CLIVault()
        let token = try await server.passwordToken()
        let response: [String: Any] = [
            "access_token": token.accessToken, "token_type": "Bearer", "expires_in": 5,
            "refresh_token": token.refreshToken!,
        ]
        let client = AuthorizationServer.Client.confidentialPassword
        let secretFile = vault.directory.file("client-secret")
        try writePrivateFile(client.1!, to: secretFile)
        try vault.run(
            [
                "import", "-", "--issuer", server.url.absoluteString, "--client-id", client.0, "--client-secret-file",
                secretFile.path,
            ], input: String(decoding: try JSONSerialization.data(withJSONObject: response), as: UTF8.self)
        ).expectSuccess()
        try await server.resetStats()
        let result = try CLIProcess.run(
            vault.unlock + [
                "exec", "--env", "API_TOKEN=token:default", "--", "/bin/sh", "-c",
                #"printf %s "$API_TOKEN" | sha256sum"#,
            ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try await server.tokenRequests("refresh_token") == 1)
        let fresh = try vault.run(["token"]).stdout.trimmingCharacters(in: .newlines)
        let digest = result.stdout.split(separator: " ").first.map(String.init)
        #expect(digest == CLIExecTests.digest(fresh), "the program did not get the refreshed token")
        #expect(digest != CLIExecTests.digest(token.accessToken), "the program got the expiring token")
    }
}
