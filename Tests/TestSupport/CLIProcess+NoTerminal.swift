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
        finish(try start(arguments, environment: environment, withoutTerminal: true))
    }
}
