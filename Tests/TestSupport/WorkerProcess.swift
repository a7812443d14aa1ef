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

    /// Starts the worker with `arguments` and returns the running process.
    ///
    /// - Parameter arguments: The worker's command and its arguments.
    /// - Returns: The process, with standard output and error piped.
    public static func start(_ arguments: [String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = executable
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

    /// Runs the worker to completion.
    ///
    /// - Parameter arguments: The worker's command and its arguments.
    /// - Returns: The exit status and everything it printed.
    public static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        finish(try start(arguments))
    }
}
