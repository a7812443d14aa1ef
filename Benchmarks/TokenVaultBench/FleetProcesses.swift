import Foundation

/// Runs a fleet of worker processes (this executable with `--fleet-worker`, ``FleetWorker``) and
/// starts them together: each one's spec goes to a 0600 file, its output to files (never a pipe
/// the section would have to drain while it waits), and once every worker has created its ready
/// file the section creates the go file they all wait for.
enum FleetProcesses {
    /// The longest a fleet may take to get ready, and then to finish.
    static let timeout: TimeInterval = 120

    /// Runs one worker per spec and returns each one's standard output.
    ///
    /// - Parameters:
    ///   - specs: What each does; their ready and go files must be in `directory`.
    ///   - directory: Where the spec and output files go.
    ///   - opened: Called with the wall-clock time (seconds since 1970) the barrier opened.
    /// - Returns: Each worker's standard output, in the order of `specs`.
    /// - Throws: ``FleetFailure`` when a worker fails or the fleet times out (every worker still
    ///   running is then killed by its PID).
    static func run(_ specs: [FleetWorkerSpec], in directory: URL, opened: (Double) -> Void = { _ in }) throws -> [Data]
    {
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        var processes: [(process: Process, output: URL, error: URL)] = []
        defer {
            for (process, _, _) in processes where process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        for (number, spec) in specs.enumerated() {
            let file = directory.appendingPathComponent("worker-\(number).json")
            try? FileManager.default.removeItem(at: file)
            guard
                FileManager.default.createFile(
                    atPath: file.path, contents: try JSONEncoder().encode(spec), attributes: [.posixPermissions: 0o600])
            else { throw FleetFailure("cannot write a worker's spec file") }
            let output = directory.appendingPathComponent("worker-\(number).out")
            let error = directory.appendingPathComponent("worker-\(number).err")
            for url in [output, error] { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
            let process = Process()
            process.executableURL = executable
            process.arguments = ["--fleet-worker", file.path]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = try FileHandle(forWritingTo: output)
            process.standardError = try FileHandle(forWritingTo: error)
            try process.run()
            processes.append((process, output, error))
        }

        let deadline = Date().addingTimeInterval(timeout)
        while !specs.allSatisfy({ access($0.readyFile, F_OK) == 0 }) {
            if let failed = processes.first(where: { !$0.process.isRunning }) { throw failure(failed.error) }
            guard Date() < deadline else { throw FleetFailure("the workers were not ready in \(Int(timeout)) s") }
            usleep(1_000)
        }
        for goFile in Set(specs.map(\.goFile)) {
            _ = FileManager.default.createFile(atPath: goFile, contents: nil)
        }
        opened(Date().timeIntervalSince1970)

        for (process, _, error) in processes {
            while process.isRunning {
                guard Date() < deadline.addingTimeInterval(timeout) else {
                    throw FleetFailure("the workers did not finish in \(Int(timeout)) s")
                }
                usleep(1_000)
            }
            guard process.terminationStatus == 0 else { throw failure(error) }
        }
        return try processes.map { try Data(contentsOf: $0.output) }
    }

    /// A worker's failure, with the last line it wrote to standard error.
    private static func failure(_ error: URL) -> FleetFailure {
        let text = (try? String(contentsOf: error, encoding: .utf8)) ?? ""
        let last = text.split(separator: "\n").last.map(String.init) ?? "no message"
        return FleetFailure("a fleet worker failed: \(last)")
    }
}
