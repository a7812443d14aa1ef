import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An agent a test started with `tokenvault unlock`, in a runtime folder of the test's own; ``stop()``
/// ends it with `tokenvault lock`, then by its PID if it is still there, and runs on `deinit` too, so
/// a failing test leaves no agent behind.
final class AgentProcess {
    let vault: CLIVault
    let runtime = TemporaryDirectory()
    /// `XDG_RUNTIME_DIR` for every process of the test.
    var environment: [String: String] { ["XDG_RUNTIME_DIR": runtime.url.path] }
    var folder: URL { runtime.url.appendingPathComponent("tokenvault") }
    private(set) var pid: pid_t = 0

    /// Starts the agent for `vault`.
    init(_ vault: CLIVault, idle: String = "15m") throws {
        self.vault = vault
        let started = try vault.run(["unlock", "--idle", idle], environment: environment)
        guard started.status == 0,
            let text = started.stdout.components(separatedBy: "(pid ").last?.prefix(while: \.isNumber),
            let pid = pid_t(text)
        else {
            Issue.record("unlock failed: \(started.status) \(started.stderr)")
            throw CocoaError(.executableLoad)
        }
        self.pid = pid
    }

    deinit { stop() }

    /// A command without any unlock option: it succeeds only through the agent, as there is no
    /// passphrase to read and no terminal to ask.
    func run(_ arguments: [String], input: String = "") throws -> CLIProcess.Result {
        CLIProcess.finish(
            try CLIProcess.start(
                ["--vault", vault.path] + arguments, input: input, environment: environment, withoutTerminal: true))
    }

    /// The socket's path: the only `.sock` file in the folder.
    var socket: URL? {
        (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil))?
            .first { $0.pathExtension == "sock" }
    }

    /// The agent's log.
    var log: String {
        let file = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil))?
            .first { $0.pathExtension == "log" }
        return file.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? ""
    }

    /// Whether the agent process still runs (a zombie does not count).
    var isRunning: Bool {
        guard pid > 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else {
            return false
        }
        let state = stat.components(separatedBy: ") ").last?.first
        return state != "Z" && state != "X"
    }

    /// Waits, up to a generous bound, for the agent to be gone.
    func waitUntilGone() -> Bool {
        for _ in 0..<600 where isRunning { usleep(50_000) }
        return !isRunning
    }

    /// Ends the agent: `tokenvault lock`, then `SIGKILL` by its PID if it did not stop.
    func stop() {
        guard isRunning else { return }
        _ = try? CLIProcess.run(["lock", "--vault", vault.path], environment: environment)
        if !waitUntilGone() { kill(pid, SIGKILL) }
    }
}
