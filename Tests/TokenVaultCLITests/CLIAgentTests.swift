import AgentProtocol
import Foundation
import TestSupport
import Testing
import TokenVault

@testable import TokenVaultCLI

#if canImport(Glibc)
    import Glibc
#endif

/// `tokenvault unlock`, `lock` and the agent between them, through the real binary: commands
/// served without a passphrase, the socket's modes, stale sockets, killed clients, other users,
/// many clients at once, and the idle timeout.
@Suite struct CLIAgentTests {
    static let secretValue = "SV-agent-4e1b7c9d"
    static let accessToken = "AT-agent-8a2f6d0c"

    /// Commands unlocking the vault themselves, each opening and closing it while the agent keeps
    /// it open, and the agent's own writes between them: every write stays, and the file verifies.
    @Test func writesOfCommandsBesideTheAgentAndOfTheAgentAllStay() throws {
        let vault = try CLIVault()
        let agent = try AgentProcess(vault)
        defer { agent.stop() }
        let elsewhere = ["XDG_RUNTIME_DIR": agent.runtime.url.appendingPathComponent("none").path]
        for round in 0..<3 {
            try vault.run(["secret", "set", "direct-\(round)"], input: "d", environment: elsewhere).expectSuccess()
            try agent.run(["secret", "set", "agent-\(round)"], input: "a").expectSuccess()
        }
        agent.stop()
        let names = try vault.run(["secret", "list"]).stdout.split(separator: "\n").sorted()
        #expect(names == ["agent-0", "agent-1", "agent-2", "direct-0", "direct-1", "direct-2"])
        let verified = try vault.run(["verify"])
        #expect(
            verified.status == 0 && verified.stdout.hasPrefix("OK: 6 records"), "\(verified.stdout)\(verified.stderr)")
    }

    @Test func commandsRunThroughTheAgentWithoutThePassphraseAndLockStopsIt() throws {
        let vault = try CLIVault()
        let response = #"{"access_token":"\#(Self.accessToken)","token_type":"Bearer","expires_in":3600}"#
        try vault.run(["import", "-", "--issuer", "https://issuer.example.com", "--client-id", "cli"], input: response)
            .expectSuccess()
        // Without an agent, a command with no unlock option and no terminal cannot unlock.
        let agent = try AgentProcess(vault)
        defer { agent.stop() }
        try agent.run(["secret", "set", "api"], input: Self.secretValue).expectSuccess()
        let got = try agent.run(["secret", "get", "api"])
        #expect(got.status == 0 && got.stdout == Self.secretValue, "\(got.stderr)")
        #expect(try agent.run(["secret", "list"]).stdout == "api\n")
        #expect(try agent.run(["token"]).stdout == Self.accessToken + "\n")
        #expect(try agent.run(["list", "--json"]).stdout.contains("\"default\" : true"))
        // `exec` asks the agent for its values; the program compares them, so nothing is printed.
        let check = #"test "$V" = "\#(Self.secretValue)" && test "$T" = "\#(Self.accessToken)""#
        let exec = try agent.run([
            "exec", "--env", "V=secret:api", "--env", "T=token:default", "--", "/bin/sh", "-c", check,
        ])
        #expect(exec.status == 0 && exec.stdout.isEmpty, "\(exec.stderr)")
        let execMissing = try agent.run(["exec", "--env", "V=secret:nope", "--", "/bin/true"])
        #expect(execMissing.status == 5 && execMissing.stderr.hasPrefix("tokenvault: "), "\(execMissing.stderr)")
        let gitRequest = "protocol=https\nhost=git.example.com\nusername=u\n"
        try agent.run(["git-credential", "store"], input: gitRequest + "password=\(Self.secretValue)\n").expectSuccess()
        let gitAnswer = try agent.run(["git-credential", "get"], input: gitRequest)
        #expect(gitAnswer.stdout == "username=u\npassword=\(Self.secretValue)\n", "\(gitAnswer.stderr)")
        let missing = try agent.run(["secret", "get", "nope"])
        #expect(missing.status == 5 && missing.stderr.hasPrefix("tokenvault: "), "\(missing.stderr)")
        try agent.run(["secret", "rm", "api"]).expectSuccess()
        #expect(try agent.run(["secret", "list"]).stdout.isEmpty)
        #expect(!agent.log.contains(Self.secretValue) && !agent.log.contains(Self.accessToken))

        let locked = try CLIProcess.run(["lock", "--vault", vault.path], environment: agent.environment)
        #expect(locked.status == 0 && locked.stdout.hasPrefix("Locked "), "\(locked.stderr)")
        #expect(agent.waitUntilGone())
        #expect(agent.socket == nil)
        #expect(agent.log.contains("locked and stopped: lock requested (keys wiped: true)"))
        let after = try agent.run(["secret", "list"])
        #expect(after.status == 2 && after.stderr.contains("no terminal to ask for a passphrase"), "\(after.stderr)")
    }

    @Test func dockerCredentialIsServedThroughTheAgent() throws {
        let vault = try CLIVault()
        let agent = try AgentProcess(vault)
        defer { agent.stop() }
        let server = "https://registry.example.com"
        let stored = try agent.run(
            ["docker-credential", "store"],
            input: #"{"ServerURL":"\#(server)","Username":"alice","Secret":"\#(Self.secretValue)"}"#)
        #expect(stored.status == 0, "\(stored.stderr)")
        let got = try agent.run(["docker-credential", "get"], input: server + "\n")
        #expect(got.status == 0, "\(got.stderr)")
        let answer = try #require(try got.json() as? [String: String])
        #expect(answer == ["ServerURL": server, "Username": "alice", "Secret": Self.secretValue])
        #expect(try agent.run(["docker-credential", "list"]).json() as? [String: String] == [server: "alice"])
        let missing = try agent.run(["docker-credential", "get"], input: "https://other.example.com")
        #expect(missing.status == 1 && missing.stdout == "credentials not found in native keychain\n")
        #expect(!agent.log.contains(Self.secretValue))
        // Locked, the same request has no passphrase to unlock with: it was the agent that served it.
        try CLIProcess.run(["lock", "--vault", vault.path], environment: agent.environment).expectSuccess()
        #expect(agent.waitUntilGone())
        #expect(try agent.run(["docker-credential", "get"], input: server).status == 2)
    }

    @Test func theSocketIs0600InAFolderOf0700AndOneAgentServesAVault() throws {
        let vault = try CLIVault()
        let agent = try AgentProcess(vault)
        defer { agent.stop() }
        let socket = try #require(agent.socket)
        #expect(try FileManager.default.attributesOfItem(atPath: socket.path)[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.attributesOfItem(atPath: agent.folder.path)[.posixPermissions] as? Int == 0o700)
        // A folder others may enter is not trusted: the client unlocks itself (and, with no
        // passphrase to read, stops).
        chmod(agent.folder.path, 0o711)
        let loosened = try agent.run(["secret", "list"])
        chmod(agent.folder.path, 0o700)
        #expect(loosened.status == 2 && loosened.stderr.contains("no terminal"), "\(loosened.stderr)")
        try agent.run(["secret", "list"]).expectSuccess()
        let again = try vault.run(["unlock"], environment: agent.environment)
        #expect(again.status == 0 && again.stdout.hasPrefix("An agent already serves"), "\(again.stderr)")
        let second = try vault.run(["agent"], environment: agent.environment)
        #expect(second.status != 0 && second.stderr.contains("an agent already serves"), "\(second.stderr)")
    }

    @Test func aKilledAgentsStaleSocketIsRemovedAndCommandsUnlockThemselves() throws {
        let vault = try CLIVault()
        try vault.run(["secret", "set", "api"], input: Self.secretValue).expectSuccess()
        let agent = try AgentProcess(vault)
        defer { agent.stop() }
        kill(agent.pid, SIGKILL)
        #expect(agent.waitUntilGone())
        #expect(agent.socket != nil)
        let got = try vault.run(["secret", "get", "api"], environment: agent.environment)
        #expect(got.status == 0 && got.stdout == Self.secretValue, "\(got.stderr)")
        #expect(agent.socket == nil)
    }

    @Test func theAgentOutlivesClientsKilledMidRequest() throws {
        let vault = try CLIVault()
        let agent = try AgentProcess(vault)
        defer { agent.stop() }
        // A `secret set` waiting for its value on standard input holds its connection to the agent.
        let client = Process()
        client.executableURL = CLIProcess.executable
        client.arguments = ["secret", "set", "api", "--vault", vault.path]
        client.environment = ProcessInfo.processInfo.environment.merging(agent.environment) { $1 }
        let input = Pipe()
        client.standardInput = input
        client.standardOutput = FileHandle.nullDevice
        client.standardError = FileHandle.nullDevice
        try client.run()
        input.fileHandleForWriting.write(Data("partial".utf8))
        usleep(200_000)
        kill(client.processIdentifier, SIGKILL)
        client.waitUntilExit()
        // A client that sends half a frame and vanishes.
        let socket = try #require(agent.socket)
        do {
            let half = try UnixSocket.connected(to: socket.path)
            let header: [UInt8] = [0, 0, 0, 100, 1, 2, 3]
            _ = header.withUnsafeBytes { send(half.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        try agent.run(["secret", "set", "api"], input: Self.secretValue).expectSuccess()
        #expect(try agent.run(["secret", "get", "api"]).stdout == Self.secretValue)
    }

    @Test func twoHundredConcurrentClientsAllSucceed() throws {
        let vault = try CLIVault()
        try vault.run(["secret", "set", "api"], input: Self.secretValue).expectSuccess()
        let agent = try AgentProcess(vault)
        defer { agent.stop() }
        let started = try (0..<200).map { _ in
            try CLIProcess.start(
                ["secret", "get", "api", "--vault", vault.path], environment: agent.environment, withoutTerminal: true)
        }
        let results = started.map(CLIProcess.finish)
        let failures = results.filter { $0.status != 0 || $0.stdout != Self.secretValue }
        #expect(failures.isEmpty, "\(failures.count) failed: \(failures.first?.stderr ?? "")")
    }

    /// More clients at once than the agent may have files open: it waits for connections to finish
    /// and serves again, instead of no longer accepting any (which left every later client waiting).
    @Test func anAgentOutOfDescriptorsServesAgainOnceConnectionsFinish() throws {
        let vault = try CLIVault()
        try vault.run(["secret", "set", "api"], input: Self.secretValue).expectSuccess()
        let agent = try AgentProcess(vault)
        defer { agent.stop() }
        let limit = Process()
        limit.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        limit.arguments = ["--pid", String(agent.pid), "--nofile=48:48"]
        try limit.run()
        limit.waitUntilExit()
        try #require(limit.terminationStatus == 0)
        let socket = try #require(agent.socket).path
        do {
            // Idle connections, each held by the agent until its read gives up: more than it may open.
            let idle = try (0..<96).map { _ in try UnixSocket.connected(to: socket) }
            func descriptors() -> Int {
                (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(agent.pid)/fd").count) ?? 0
            }
            for _ in 0..<600 where descriptors() < 48 { usleep(20_000) }
            #expect(descriptors() >= 48, "the agent never ran out of descriptors")
            #expect(idle.count == 96)
        }
        // All closed: the next request is answered (bounded: a reply that never comes fails the read).
        let connection = try UnixSocket.connected(to: socket)
        connection.setReadTimeout(seconds: 30)
        let ping = AgentMessage.Request(
            action: .ping, vault: AgentSocketLocation.vaultIdentity(.file(URL(fileURLWithPath: vault.path))))
        guard (try? AgentConnection.exchange(ping, on: connection))?.status == 0 else {
            // An agent that no longer accepts would hold `lock` (and the test) forever: end it by PID.
            kill(agent.pid, SIGKILL)
            Issue.record("the agent no longer answers once connections finished")
            return
        }
        #expect(try agent.run(["secret", "get", "api"]).stdout == Self.secretValue)
    }

    @Test func aRequestOfAnotherProtocolVersionIsDeclinedWithAReason() throws {
        let vault = try CLIVault()
        let agent = try AgentProcess(vault)
        defer { agent.stop() }
        let connection = try UnixSocket.connected(to: try #require(agent.socket).path)
        var request = AgentMessage.Request(
            action: .ping, vault: AgentSocketLocation.vaultIdentity(.file(URL(fileURLWithPath: vault.path))))
        request.version = AgentMessage.version + 1
        try connection.send(frame: AgentMessage.encode(request))
        let reply = try JSONDecoder().decode(AgentMessage.Reply.self, from: connection.receiveFrame())
        #expect(reply.version == AgentMessage.version)
        #expect(reply.declined?.contains("protocol version \(AgentMessage.version)") == true)
        #expect(agent.log.contains("declined a request of protocol version \(AgentMessage.version + 1)"))
    }

    @Test func anotherUserIsRefusedEvenWhenTheModesWouldLetItIn() throws {
        guard getuid() == 0 else {
            print("skipped: refusing another user needs root, to run a client as nobody")
            return
        }
        let vault = try CLIVault()
        try vault.run(["secret", "set", "api"], input: Self.secretValue).expectSuccess()
        let agent = try AgentProcess(vault)
        defer { agent.stop() }
        let socket = try #require(agent.socket)
        // Loosen the modes, so only the peer check stands between the other user and the vault.
        for path in [agent.runtime.url.path, agent.folder.path] { chmod(path, 0o711) }
        chmod(socket.path, 0o666)
        defer { chmod(agent.folder.path, 0o700) }
        let request = String(
            decoding: try AgentMessage.encode(
                AgentMessage.Request(
                    action: .run, vault: AgentSocketLocation.vaultIdentity(.file(URL(fileURLWithPath: vault.path))),
                    arguments: ["secret", "get", "api"])), as: UTF8.self)
        let script = """
            import socket, struct, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(sys.argv[1])
            body = sys.argv[2].encode()
            data = b""
            # The agent closes a refused connection at once: sending or reading may then fail.
            try:
                s.sendall(struct.pack(">I", len(body)) + body)
                while True:
                    chunk = s.recv(65536)
                    if not chunk: break
                    data += chunk
            except (BrokenPipeError, ConnectionResetError):
                pass
            print("received %d bytes" % len(data))
            """
        let result = try runProgram(
            "/usr/bin/setpriv",
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, socket.path,
                request,
            ])
        #expect(result.stdout == "received 0 bytes\n", "\(result.stdout) \(result.stderr)")
        #expect(!result.stdout.contains(Self.secretValue))
        #expect(agent.log.contains("refused a connection from uid 65534"))
        chmod(agent.folder.path, 0o700)
        chmod(socket.path, 0o600)
        #expect(try agent.run(["secret", "get", "api"]).stdout == Self.secretValue)
    }

    @Test func theIdleTimeoutWipesTheKeysRemovesTheSocketAndStops() throws {
        let vault = try CLIVault()
        let agent = try AgentProcess(vault, idle: "1s")
        defer { agent.stop() }
        #expect(agent.waitUntilGone())
        #expect(agent.socket == nil)
        #expect(agent.log.contains("locked and stopped: idle for 1.0 seconds (keys wiped: true)"), "\(agent.log)")
    }

    /// The idle rule on an injected clock, over a real vault: nothing happens before the timeout,
    /// the vault's own keys are wiped at it.
    @Test func theIdleTimeoutOnAnInjectedClockWipesTheVaultsKeys() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("vault.db")
        let vault = try Vault.create(
            at: url, unlock: .passphrase("agent idle test passphrase"), keyDerivation: .interactive)
        let clock = ManualClock()
        let server = AgentServer(
            vault: vault,
            location: AgentSocketLocation(vault: .file(url), environment: ["XDG_RUNTIME_DIR": directory.url.path]),
            idleTimeout: .seconds(60), clock: clock)
        clock.advance(by: .seconds(59))
        #expect(!server.lockIfIdle())
        #expect(!vault.isLocked)
        clock.advance(by: .seconds(1))
        #expect(server.lockIfIdle())
        #expect(vault.isLocked)
        #expect(throws: VaultError.locked) { try vault.set("x", for: SecretKey<String>("after")) }
    }
}
