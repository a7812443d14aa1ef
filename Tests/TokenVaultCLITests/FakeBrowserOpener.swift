import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// An `xdg-open` of the test's own, in a folder to put first on `PATH`: run, it writes its argument
/// count and then each argument, one a line, into a FIFO the test reads, so the test learns exactly
/// what the CLI handed the browser opener, and when, by waiting on the pipe instead of sleeping.
///
/// The test then plays the browser itself with what it read.
final class FakeBrowserOpener {
    let folder = TemporaryDirectory()
    private let reader: Int32

    /// Makes the script and the FIFO, and opens the FIFO's reading end (without blocking, so the
    /// script's open for writing never waits and the test's wait is in ``arguments(within:)``).
    init() throws {
        let fifo = folder.file("opened").path
        guard mkfifo(fifo, 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
        reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard reader >= 0 else { throw CocoaError(.fileReadUnknown) }
        let script = """
            #!/bin/sh
            # The test's xdg-open: its arguments go to the test, nothing is opened.
            { printf '%s\\n' "$#"; for argument in "$@"; do printf '%s\\n' "$argument"; done; } > '\(fifo)'

            """
        try Data(script.utf8).write(to: folder.file("xdg-open"))
        guard chmod(folder.file("xdg-open").path, 0o700) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    deinit {
        close(reader)
    }

    /// `PATH` with this folder first, then the test process's own.
    var path: String {
        folder.url.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    }

    /// The arguments the opener was run with, once it has written them all and closed the pipe;
    /// `nil` when it was not run within `timeout`.
    ///
    /// - Parameter timeout: The longest to wait.
    /// - Returns: The arguments.
    func arguments(within timeout: Duration) -> [String]? {
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            // Until a writer has opened the FIFO, poll reports nothing; once it has closed it, POLLHUP.
            var ready = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + 1)
            let polled = poll(&ready, 1, milliseconds)
            if polled < 0, errno == EINTR { continue }
            guard polled > 0 else { return nil }
            let count = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
            if count > 0 {
                received += buffer[0..<count]
            } else if count == 0 {
                break  // the writer closed it: everything is in
            } else if errno != EAGAIN, errno != EINTR {
                return nil
            }
        }
        let lines = String(decoding: received, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
        guard let count = lines.first.flatMap({ Int($0) }), lines.count == count + 2, lines.last == "" else {
            return nil
        }
        return Array(lines[1..<count + 1])
    }
}
