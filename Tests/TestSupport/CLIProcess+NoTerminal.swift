import Foundation

extension CLIProcess {
    /// Runs `tokenvault arguments...` in a new session (`setsid`), so it has no controlling
    /// terminal even when the tests themselves run in one: for the paths that must fail rather
    /// than prompt.
    ///
    /// - Parameters:
    ///   - arguments: The command line after `tokenvault`.
    ///   - environment: Variables to add; `TOKENVAULT_PASSPHRASE` and `TOKENVAULT_PATH` are
    ///     otherwise cleared, as ``run(_:input:environment:)`` clears them.
    /// - Returns: What the run printed and how it exited.
    public static func runWithoutTerminal(_ arguments: [String], environment: [String: String] = [:]) throws
        -> Result
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["--wait", executable.path] + arguments
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
        try stdin.fileHandleForWriting.close()
        return finish((process, stdout, stderr))
    }
}
