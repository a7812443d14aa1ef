import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Standard output and error: data on stdout, messages and progress on stderr. In the agent, a
/// console writes into a ``Capture`` instead, which goes back to the client.
struct Console: Sendable {
    /// What a command run by the agent printed.
    final class Capture: Sendable {
        let stdout = Mutex(Data())
        let stderr = Mutex("")
    }

    /// Where the output goes; `nil` for this process's own stdout and stderr.
    var capture: Capture?

    /// Both stdout and stderr are terminals: progress lines are worth printing.
    var isInteractive: Bool { capture == nil && isatty(STDOUT_FILENO) == 1 && isatty(STDERR_FILENO) == 1 }

    func out(_ text: String) { write(Data((text + "\n").utf8)) }

    /// Writes bytes as they are (a secret's value) on stdout.
    func write(_ data: Data) {
        if let capture {
            capture.stdout.withLock { $0.append(data) }
        } else {
            FileHandle.standardOutput.write(data)
        }
    }

    func error(_ text: String) {
        if let capture {
            capture.stderr.withLock { $0 += text + "\n" }
        } else {
            FileHandle.standardError.write(Data((text + "\n").utf8))
        }
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
