import AgentProtocol
import Foundation
import Synchronization
import TokenVault

#if canImport(Glibc)
    import Glibc
#endif

/// The running agent: holds one unlocked vault, answers connections from this user on its socket,
/// and wipes the vault's keys (``Vault/lock()``) when told to lock or after ``idleTimeout`` without
/// a request.
final class AgentServer: Sendable {
    let vault: Vault
    let location: AgentSocketLocation
    let idleTimeout: Duration
    /// The clock the idle timeout is measured on; tests pass their own.
    let clock: any VaultClock
    private let lastActivity: Mutex<Duration>
    /// Requests being served, and whether the idle timeout closed the agent to new ones.
    private let requests = Mutex((running: 0, closed: false))
    private let stopping = Mutex(false)

    init(
        vault: Vault, location: AgentSocketLocation, idleTimeout: Duration, clock: any VaultClock = SystemVaultClock()
    ) {
        self.vault = vault
        self.location = location
        self.idleTimeout = idleTimeout
        self.clock = clock
        lastActivity = Mutex(clock.now)
    }

    /// Wipes the vault's keys when no request ran for ``idleTimeout`` and none is running.
    ///
    /// - Returns: Whether the keys were wiped.
    func lockIfIdle() -> Bool {
        let idle = requests.withLock { requests in
            requests.closed = requests.running == 0 && lastActivity.withLock { clock.now - $0 >= idleTimeout }
            return requests.closed
        }
        if idle { vault.lock() }
        return idle
    }

    /// Accepts connections on `listener` and checks the idle timeout, each on a thread of its own;
    /// returns at once.
    func start(_ listener: UnixSocket) {
        Thread.detachNewThread { [self] in acceptConnections(on: listener) }
        let interval = min(idleTimeout / 4, .seconds(1))
        Thread.detachNewThread { [self] in
            while true {
                Self.sleepThread(for: interval)
                if lockIfIdle() { stop(because: "idle for \(idleTimeout)") }
            }
        }
    }

    /// Serves each connection on a thread of its own. Out of descriptors (more clients at once than
    /// the process may have files open), the connections wait in the socket's backlog while the
    /// agent waits, 5 ms at first and doubling up to 1 s, for the running ones to finish: giving up
    /// would leave the agent unable to serve until it is stopped, its clients waiting for it.
    private func acceptConnections(on listener: UnixSocket) {
        var pause = Duration.milliseconds(5)
        while true {
            do {
                let connection = try listener.accept()
                pause = .milliseconds(5)
                Thread.detachNewThread { [self] in handle(connection) }
            } catch let failure as UnixSocket.Failure where failure.isTransient {
                // Not logged: out of descriptors, the log file cannot be opened either.
                Self.sleepThread(for: pause)
                pause = min(pause * 2, .seconds(1))
            } catch {
                location.appendLog("stopped accepting connections: \(error)")
                return
            }
        }
    }

    /// Blocks this thread for `duration` (the agent's loops run on threads of their own).
    private static func sleepThread(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// Wipes the keys, removes the socket and exits; a `lock` request is answered in between.
    func stop(because reason: String, answering connection: UnixSocket? = nil) -> Never {
        let first = stopping.withLock { stopping in
            defer { stopping = true }
            return !stopping
        }
        guard first else { while true { sleep(60) } }
        vault.lock()
        unlink(location.socket.path)
        location.appendLog("locked and stopped: \(reason) (keys wiped: \(vault.isLocked))")
        if let connection {
            let reply = AgentMessage.Reply(status: 0, stdout: Data("Locked \(location.vaultIdentity)\n".utf8))
            try? connection.send(frame: AgentMessage.encode(reply))
        }
        finish(.success)
    }

    /// One connection: refused unless its process runs as this user, then one request and its reply.
    private func handle(_ connection: UnixSocket) {
        guard let peer = try? connection.peerUserID(), peer == getuid() else {
            location.appendLog(
                "refused a connection from uid \((try? connection.peerUserID()).map(String.init) ?? "unknown")")
            return
        }
        connection.setReadTimeout(seconds: 10)
        guard let frame = try? connection.receiveFrame() else { return }
        let admitted = requests.withLock { requests in
            if !requests.closed { requests.running += 1 }
            return !requests.closed
        }
        guard admitted else {
            // Timed out between the client's connect and its request: the client unlocks itself.
            let reply = AgentMessage.Reply(status: ExitCode.failure.rawValue, declined: "the agent is stopping")
            try? connection.send(frame: AgentMessage.encode(reply))
            return
        }
        defer {
            lastActivity.withLock { $0 = clock.now }
            requests.withLock { $0.running -= 1 }
        }
        let reply: AgentMessage.Reply
        switch decode(frame) {
        case .declined(let declined): reply = declined
        case .request(let request):
            switch request.action {
            case .ping: reply = AgentMessage.Reply(status: 0)
            case .lock: stop(because: "lock requested", answering: connection)
            case .run: reply = run(request)
            }
        }
        try? connection.send(frame: AgentMessage.encode(reply))
    }

    /// The request, or the reply that declines it.
    private func decode(_ frame: Data) -> Decoded {
        func declined(_ reason: String) -> Decoded {
            .declined(AgentMessage.Reply(status: ExitCode.failure.rawValue, declined: reason))
        }
        guard let probe = try? JSONDecoder().decode(AgentMessage.VersionProbe.self, from: frame) else {
            return declined("the agent could not read the request")
        }
        guard probe.version == AgentMessage.version else {
            location.appendLog("declined a request of protocol version \(probe.version)")
            return declined(
                "the agent speaks protocol version \(AgentMessage.version), the request version \(probe.version)")
        }
        guard let request = try? JSONDecoder().decode(AgentMessage.Request.self, from: frame) else {
            return declined("the agent could not read the request")
        }
        guard request.vault == location.vaultIdentity else { return declined("the agent serves another vault") }
        return .request(request)
    }

    /// Runs the request's command against the vault, capturing what it prints.
    private func run(_ request: AgentMessage.Request) -> AgentMessage.Reply {
        let parser = CommandLineParser(commands: CommandTable.commands, globalOptions: CommandTable.global)
        guard let (command, arguments) = try? parser.parse(request.arguments),
            AgentClient.servedCommands.contains(command.name)
        else {
            return AgentMessage.Reply(
                status: ExitCode.failure.rawValue, declined: "the agent does not run this command")
        }
        var context = CommandContext(arguments: arguments)
        let capture = Console.Capture()
        context.console = Console(capture: capture)
        context.agentVault = vault
        context.input = request.input
        context.stdoutIsTerminal = request.stdoutIsTerminal
        let status = Self.wait { [context] in
            do {
                try await command.run(arguments, context)
                return ExitCode.success.rawValue
            } catch {
                let failure = FailureReport(error)
                if let line = failure.line { context.console.error(line) }
                return failure.status
            }
        }
        return AgentMessage.Reply(
            status: status, stdout: capture.stdout.withLock { $0 }, stderr: capture.stderr.withLock { $0 })
    }

    /// Runs `body` on the task executors and blocks this (connection) thread until it is done.
    private static func wait(_ body: @escaping @Sendable () async -> Int32) -> Int32 {
        let result = StatusBox()
        let done = DispatchSemaphore(value: 0)
        Task {
            let status = await body()
            result.status.withLock { $0 = status }
            done.signal()
        }
        done.wait()
        return result.status.withLock { $0 }
    }

    private enum Decoded {
        case request(AgentMessage.Request)
        case declined(AgentMessage.Reply)
    }

    private final class StatusBox: Sendable {
        let status = Mutex<Int32>(0)
    }
}
