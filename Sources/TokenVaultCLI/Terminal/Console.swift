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

    /// Both stdout and stderr are terminals: progress lines are worth printing on stderr. Never into
    /// a pipe, a file or the agent's capture, and not while the output is being captured
    /// (`$(tokenvault token)`), where a person is not watching the command.
    var showsProgress: Bool { capture == nil && isatty(STDOUT_FILENO) == 1 && isatty(STDERR_FILENO) == 1 }

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
        if showsProgress { error(text) }
    }

    /// Maps `items` with `body`, counting them on one terminal line (`Decrypting 120/1000`) that
    /// is ended however `body` ends, so an error starts a line of its own.
    func mapShowingProgress<Item, Result>(
        _ label: String, _ items: [Item], _ body: (Item) throws -> Result
    ) rethrows -> [Result] {
        guard showsProgress, !items.isEmpty else { return try items.map(body) }
        defer { error("") }
        return try items.enumerated().map { index, item in
            FileHandle.standardError.write(Data("\r\(label) \(index + 1)/\(items.count)".utf8))
            return try body(item)
        }
    }

    /// Prints a JSON value (objects with sorted keys) on stdout.
    func json(_ value: Any) throws {
        let data = try JSONSerialization.data(
            withJSONObject: value, options: [.sortedKeys, .prettyPrinted, .fragmentsAllowed])
        out(String(decoding: data, as: UTF8.self))
    }
}
