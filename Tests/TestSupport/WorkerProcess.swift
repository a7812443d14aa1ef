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

    /// Kills a started worker with `SIGKILL` once it has printed `count` lines starting with
    /// `prefix`, and `delay` after that: the kill lands after that much progress whatever the
    /// machine's speed (a sanitizer, a loaded machine), then at a random point of what follows.
    ///
    /// - Parameters:
    ///   - count: How many such lines to wait for; 0 kills after `delay` from now.
    ///   - prefix: The start of the lines counted.
    ///   - delay: How long to wait after the last of them.
    ///   - started: What ``start(_:program:)`` returned.
    /// - Returns: Everything the worker printed.
    public static func kill(
        after count: Int, linesStartingWith prefix: String, delay: Duration, _ started: (Process, Pipe)
    ) -> String {
        let handle = started.1.fileHandleForReading
        // A newline before the first line, so that every line start is a newline then the prefix.
        var output = Data("\n".utf8)
        let marker = Array("\n\(prefix)".utf8)
        var seen = 0
        var searched = 0
        while seen < count {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            output.append(chunk)
            // Count only lines that are complete in what has been read so far.
            while let range = output[searched...].firstRange(of: marker) {
                seen += 1
                searched = range.upperBound
            }
        }
        usleep(UInt32(delay.components.seconds * 1_000_000 + delay.components.attoseconds / 1_000_000_000_000))
        Foundation.kill(started.0.processIdentifier, SIGKILL)
        return String(decoding: output.dropFirst(), as: UTF8.self) + finish(started).output
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
