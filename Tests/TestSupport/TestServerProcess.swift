import Foundation
import Locking

/// The life of the test servers this package starts on loopback: the handshake (the server prints
/// `READY <url>` on standard output once it listens) and the stop, by the server's own PID.
enum TestServerProcess {
    /// Reads the first line `process` prints on `output` and returns the URL it announces, or `nil`
    /// when the line is something else or the server exits first. A watchdog kills a server that
    /// says nothing within 30 s, so the read cannot hang.
    static func url(of process: Process, output: Pipe) -> URL? {
        let pid = process.processIdentifier
        let ready = Locked(false)
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) {
            if !ready.value { kill(pid, SIGKILL) }
        }
        var line = Data()
        let handle = output.fileHandleForReading
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        ready.withLock { $0 = true }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("READY ") else { return nil }
        return URL(string: String(text.dropFirst(6)))
    }

    /// Stops the server in `process` by its own PID (SIGTERM, then SIGKILL after 5 s) and waits for
    /// it to exit. Safe to call twice.
    static func stop(_ process: Locked<Process?>) {
        process.withLock { process in
            guard let running = process else { return }
            if running.isRunning {
                running.terminate()
                let deadline = Date().addingTimeInterval(5)
                while running.isRunning && Date() < deadline { usleep(20_000) }
                if running.isRunning { kill(running.processIdentifier, SIGKILL) }
                running.waitUntilExit()
            }
            process = nil
        }
    }
}
