import Foundation
import TokenVault

/// Section 8: the `tokenvault` binary, one process per call, on a 1,000-secret vault at the
/// interactive Argon2id cost: `secret get` and `secret set` unlocking themselves, then through an
/// agent (`tokenvault unlock`), medians of each; 1,000 clients started at once against the agent;
/// and where a call's start-up goes (`/bin/true` for spawning a process, `tokenvault --help` for
/// loading the Swift runtime and Foundation). `pass` and `keepassxc-cli` are not compared in this
/// version: each is reported as skipped, with why.
struct CLIBenchmark {
    /// What was measured.
    struct Result: Codable, Sendable {
        let secrets: Int
        let spawnFloor: LatencySummary
        let help: LatencySummary
        let readUnlocking: LatencySummary
        let addUnlocking: LatencySummary
        let readThroughAgent: LatencySummary
        let addThroughAgent: LatencySummary
        let concurrentClients: Int
        let concurrentFailures: Int
        let concurrentSeconds: Double
        /// One line per comparison tool not measured, and why.
        let skipped: [String]
    }

    /// The goals' limits, per process call at the median.
    static let readGoalNanoseconds = 10_000_000.0
    static let addGoalNanoseconds = 15_000_000.0

    let calls: Int
    let concurrentClients: Int
    let directory: URL

    func run(progress: (String) -> Void) throws -> Result {
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("tokenvault")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: binary.path])
        }
        let vaultURL = directory.appendingPathComponent("cli.db")
        let passphrase = "cli benchmark passphrase"
        let passphraseFile = directory.appendingPathComponent("passphrase")
        try Data((passphrase + "\n").utf8).write(to: passphraseFile)
        chmod(passphraseFile.path, 0o600)
        let valueFile = directory.appendingPathComponent("value")
        try Data("benchmark value".utf8).write(to: valueFile)
        progress("cli: filling a vault with 1,000 secrets")
        let vault = try Vault.create(
            at: vaultURL, unlock: .passphrase(Passphrase(passphrase)), keyDerivation: .interactive)
        let store = SecretStore(vault: vault, service: "tokenvault")
        for index in 0..<1_000 { try store.set(Data("value \(index)".utf8), forKey: "secret-\(index)") }
        vault.close()

        // A short folder of its own: a unix socket's path has at most 107 bytes.
        var template = Array("/tmp/tvbench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        let runtime = URL(fileURLWithPath: String(cString: made))
        defer { try? FileManager.default.removeItem(at: runtime) }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtime.path
        environment["TOKENVAULT_PASSPHRASE"] = nil
        let vaultOptions = ["--vault", vaultURL.path]
        let unlocking = vaultOptions + ["--passphrase-file", passphraseFile.path]
        func time(_ program: URL, _ arguments: [String]) throws -> UInt64 {
            let started = Stopwatch.now()
            let status = try Self.launch(program, arguments, environment).wait()
            guard status == 0 else {
                throw CallFailed(arguments: arguments.prefix(2).joined(separator: " "), status: status)
            }
            return Stopwatch.now() - started
        }
        func sample(_ arguments: (Int) -> [String], program: URL = binary) throws -> LatencySummary {
            LatencySummary(try (0..<calls).map { try time(program, arguments($0)) })
        }

        progress("cli: start-up")
        let spawnFloor = try sample({ _ in [] }, program: URL(fileURLWithPath: "/bin/true"))
        let help = try sample { _ in ["--help"] }
        progress("cli: without the agent")
        let readUnlocking = try sample { ["secret", "get", "secret-\($0 * 7 % 1_000)"] + unlocking }
        let addUnlocking = try sample {
            ["secret", "set", "added-\($0)", "--value-file", valueFile.path] + unlocking
        }
        progress("cli: through the agent")
        _ = try time(binary, ["unlock", "--idle", "10m"] + unlocking)
        defer { _ = try? time(binary, ["lock"] + vaultOptions) }
        let readThroughAgent = try sample { ["secret", "get", "secret-\($0 * 7 % 1_000)"] + vaultOptions }
        let addThroughAgent = try sample {
            ["secret", "set", "agent-added-\($0)", "--value-file", valueFile.path] + vaultOptions
        }
        progress("cli: \(concurrentClients) clients at once")
        let started = Stopwatch.now()
        let clients = try (0..<concurrentClients).map {
            try Self.launch(binary, ["secret", "get", "secret-\($0 % 1_000)"] + vaultOptions, environment)
        }
        let failures = clients.map { $0.wait() }.filter { $0 != 0 }.count
        let concurrentSeconds = Stopwatch.seconds(since: started)

        let skipped = ["pass", "keepassxc-cli"].map { tool in
            Self.isInstalled(tool, environment)
                ? "\(tool): installed, but this version of the harness does not drive it yet"
                : "\(tool): not installed, skipped"
        }
        return Result(
            secrets: 1_000, spawnFloor: spawnFloor, help: help, readUnlocking: readUnlocking,
            addUnlocking: addUnlocking, readThroughAgent: readThroughAgent, addThroughAgent: addThroughAgent,
            concurrentClients: concurrentClients, concurrentFailures: failures,
            concurrentSeconds: concurrentSeconds, skipped: skipped)
    }

    /// A timed call that failed: the benchmark measures only calls that work.
    struct CallFailed: Error, CustomStringConvertible {
        let arguments: String
        let status: Int32
        var description: String { "'tokenvault \(arguments)' exited with status \(status)" }
    }

    /// A started process, its output discarded.
    private struct Launched {
        let process: Process
        func wait() -> Int32 {
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    private static func launch(_ program: URL, _ arguments: [String], _ environment: [String: String]) throws
        -> Launched
    {
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return Launched(process: process)
    }

    private static func isInstalled(_ tool: String, _ environment: [String: String]) -> Bool {
        (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)")
        }
    }

    static func table(_ result: Result) -> TextTable {
        var table = TextTable(["process per call (\(result.secrets) secrets, interactive KDF)", "p50", "p99"])
        for (name, summary) in [
            ("/bin/true (spawning a process)", result.spawnFloor),
            ("tokenvault --help (start-up: Swift runtime, Foundation)", result.help),
            ("secret get, unlocking itself", result.readUnlocking),
            ("secret set, unlocking itself", result.addUnlocking),
            ("secret get through the agent", result.readThroughAgent),
            ("secret set through the agent", result.addThroughAgent),
        ] {
            table.add([name, Format.duration(nanoseconds: summary.p50Ns), Format.duration(nanoseconds: summary.p99Ns)])
        }
        table.add([
            "\(result.concurrentClients) clients at once through the agent",
            "\(result.concurrentFailures) failed", String(format: "%.1f s in all", result.concurrentSeconds),
        ])
        for line in result.skipped { table.add([line, "-", "-"]) }
        return table
    }

    static func goals(_ result: Result) -> [Goal] {
        func latency(_ goal: String, _ summary: LatencySummary, limit: Double) -> Goal {
            Goal(
                goal: goal, measured: Format.duration(nanoseconds: summary.p50Ns), value: summary.p50Ns, limit: limit,
                status: summary.p50Ns <= limit ? .met : .missed,
                note: "start-up alone (tokenvault --help) \(Format.duration(nanoseconds: result.help.p50Ns)), "
                    + "spawning /bin/true \(Format.duration(nanoseconds: result.spawnFloor.p50Ns))")
        }
        return [
            latency(
                "CLI read through the agent at most 10 ms per process call (p50)", result.readThroughAgent,
                limit: readGoalNanoseconds),
            latency(
                "CLI add through the agent at most 15 ms per process call (p50)", result.addThroughAgent,
                limit: addGoalNanoseconds),
            Goal(
                goal: "agent: \(result.concurrentClients) concurrent client calls, 0 failures",
                measured: "\(result.concurrentFailures) failures", value: Double(result.concurrentFailures), limit: 0,
                status: result.concurrentFailures == 0 ? .met : .missed,
                note: String(format: "all done in %.1f s", result.concurrentSeconds)),
        ]
    }
}
