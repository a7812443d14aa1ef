import Foundation

/// Runs the `VaultTestWorker` executable built beside the tests: real processes for
/// cross-process tests.
public enum WorkerProcess {
    /// The worker binary next to the running test bundle.
    public static var executable: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // On macOS the test binary sits inside a .xctest bundle.
        while directory.pathExtension == "xctest" || directory.lastPathComponent == "MacOS"
            || directory.lastPathComponent == "Contents"
        {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("VaultTestWorker")
    }

    /// Starts the worker (or another helper program) with `arguments` and returns the running process.
    ///
    /// - Parameters:
    ///   - arguments: The worker's command and its arguments.
    ///   - program: What to run; the worker by default.
    /// - Returns: The process, with standard output and error piped.
    public static func start(_ arguments: [String], program: URL = executable) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        return (process, output)
    }

    /// Waits for a started worker and returns its exit status and output.
    ///
    /// - Parameter started: What ``start(_:)`` returned.
    /// - Returns: The exit status and everything it printed.
    public static func finish(_ started: (Process, Pipe)) -> (status: Int32, output: String) {
        let data = started.1.fileHandleForReading.readDataToEndOfFile()
        started.0.waitUntilExit()
        return (started.0.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Runs the worker (or another helper program) to completion.
    ///
    /// - Parameters:
    ///   - arguments: The worker's command and its arguments.
    ///   - program: What to run; the worker by default.
    /// - Returns: The exit status and everything it printed.
    public static func run(_ arguments: [String], program: URL = executable) throws -> (status: Int32, output: String) {
        finish(try start(arguments, program: program))
    }
}
