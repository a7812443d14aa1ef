import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Standard output and error: data on stdout, messages and progress on stderr.
struct Console: Sendable {
    /// Both stdout and stderr are terminals: progress lines are worth printing.
    var isInteractive: Bool { isatty(STDOUT_FILENO) == 1 && isatty(STDERR_FILENO) == 1 }

    func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// A progress line for a slow step, only on a terminal.
    func progress(_ text: String) {
        if isInteractive { error(text) }
    }

    /// Prints a JSON value (objects with sorted keys) on stdout.
    func json(_ value: Any) throws {
        let data = try JSONSerialization.data(
            withJSONObject: value, options: [.sortedKeys, .prettyPrinted, .fragmentsAllowed])
        out(String(decoding: data, as: UTF8.self))
    }
}
