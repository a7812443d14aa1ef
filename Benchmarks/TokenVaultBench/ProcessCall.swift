import Foundation

/// One command line the cli section runs as its own process: the program, its arguments and
/// environment, and the file its standard input comes from (else /dev/null). Output is discarded,
/// and so is standard error unless ``errorOutput`` names a file.
struct ProcessCall {
    /// A call that exited with another status than 0: the benchmark measures only calls that work.
    struct Failed: Error, CustomStringConvertible {
        let command: String
        let status: Int32
        var description: String { "'\(command)' exited with status \(status)" }
    }

    /// A started call.
    struct Running {
        let process: Process
        let command: String
        let input: FileHandle?

        /// Waits for the call to end.
        ///
        /// - Returns: Its exit status.
        func wait() -> Int32 {
            process.waitUntilExit()
            try? input?.close()
            return process.terminationStatus
        }
    }

    let program: URL
    let arguments: [String]
    let environment: [String: String]
    var input: URL?
    /// The file standard error goes to (else /dev/null), to say why a call failed.
    var errorOutput: URL?

    /// The program's name and first arguments, for an error message (the arguments hold no secret).
    var command: String { ([program.lastPathComponent] + arguments.prefix(2)).joined(separator: " ") }

    /// Starts the call.
    func start() throws -> Running {
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        process.environment = environment
        let handle = try input.map { try FileHandle(forReadingFrom: $0) }
        process.standardInput = handle ?? FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errors = try errorOutput.map { file in
            _ = FileManager.default.createFile(atPath: file.path, contents: nil)
            return try FileHandle(forWritingTo: file)
        }
        process.standardError = errors ?? FileHandle.nullDevice
        try process.run()
        try errors?.close()
        return Running(process: process, command: command, input: handle)
    }

    /// Runs the call to its end.
    ///
    /// - Returns: How long it took, from start to exit, in nanoseconds.
    /// - Throws: ``Failed`` when it exited with another status than 0.
    @discardableResult
    func run() throws -> UInt64 {
        let started = Stopwatch.now()
        let running = try start()
        let status = running.wait()
        guard status == 0 else { throw Failed(command: command, status: status) }
        return Stopwatch.now() - started
    }

    /// The program called `name` on `environment`'s `PATH`, or `nil` when none is installed.
    static func installed(_ name: String, _ environment: [String: String]) -> URL? {
        (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { URL(fileURLWithPath: "\($0)/\(name)") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}
