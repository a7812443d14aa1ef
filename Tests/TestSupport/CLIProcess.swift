import Foundation
import Locking
import Testing

/// Runs the built `tokenvault` binary, as a user's shell would.
public enum CLIProcess {
    /// What a run printed and how it exited.
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String

        /// Standard output parsed as JSON.
        public func json() throws -> Any {
            try JSONSerialization.jsonObject(with: Data(stdout.utf8), options: [.fragmentsAllowed])
        }
    }

    /// The binary beside the test bundle: the front, which runs `tokenvault-core` beside it for
    /// what no agent answers.
    public static var executable: URL {
        WorkerProcess.executable.deletingLastPathComponent().appendingPathComponent("tokenvault")
    }

    /// Starts `tokenvault arguments...` (or `program`, a copy of it elsewhere) with `input` on
    /// standard input; with `withoutTerminal`, in a new session (`setsid`), so it has no
    /// controlling terminal even when the tests run in one.
    public static func start(
        _ arguments: [String], input: String = "", environment: [String: String] = [:], withoutTerminal: Bool = false,
        program: URL = executable
    ) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        if withoutTerminal {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
            process.arguments = ["--wait", program.path] + arguments
        } else {
            process.executableURL = program
            process.arguments = arguments
        }
        var merged = ProcessInfo.processInfo.environment
        merged["TOKENVAULT_PASSPHRASE"] = nil
        merged["TOKENVAULT_PATH"] = nil
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        return (process, stdout, stderr)
    }

    /// How long a run may take before ``finish(_:)`` kills it, and whatever it started, and
    /// records an issue: far beyond any command's time, so only a hang reaches it.
    public static let hangLimit = Duration.seconds(300)

    /// Waits for a started run.
    public static func finish(_ started: (Process, Pipe, Pipe)) -> Result {
        let watchdog = HangWatchdog(pid: started.0.processIdentifier, limit: hangLimit)
        defer {
            if let killed = watchdog.stop() {
                let program = started.0.executableURL?.lastPathComponent ?? "?"
                Issue.record("\(program) hung: killed after \(hangLimit) with what it started (PIDs \(killed))")
            }
        }
        let errorData = Locked(Data())
        let reader = Thread { errorData.withLock { $0 = started.2.fileHandleForReading.readDataToEndOfFile() } }
        reader.start()
        let output = started.1.fileHandleForReading.readDataToEndOfFile()
        started.0.waitUntilExit()
        while errorData.value.isEmpty && !reader.isFinished { usleep(1000) }
        return Result(
            status: started.0.terminationStatus, stdout: String(decoding: output, as: UTF8.self),
            stderr: String(decoding: errorData.value, as: UTF8.self))
    }

    /// Runs `tokenvault arguments...` to completion.
    public static func run(_ arguments: [String], input: String = "", environment: [String: String] = [:]) throws
        -> Result
    {
        finish(try start(arguments, input: input, environment: environment))
    }
}
