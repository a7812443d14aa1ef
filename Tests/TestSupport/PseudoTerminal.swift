import Foundation
import Locking

/// A command in a real pseudo-terminal (`script(1)`), typed into and read like a person would:
/// for no-echo prompt tests. Everything the terminal shows is collected.
public final class PseudoTerminal {
    private let process: Process
    private let input: FileHandle
    private let screenText = Locked("")
    private let reader: Thread

    /// Starts `command` (a shell command line) in a new pseudo-terminal.
    public init(command: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-q", "-f", "-e", "-c", command + "; echo EXIT=$?", "/dev/null"]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stdout
        try process.run()
        self.process = process
        input = stdin.fileHandleForWriting
        let screen = screenText
        let output = stdout.fileHandleForReading
        reader = Thread {
            while true {
                let chunk = output.availableData
                if chunk.isEmpty { return }
                screen.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
            }
        }
        reader.start()
    }

    /// Types `text` and Enter.
    public func type(_ text: String) {
        input.write(Data((text + "\n").utf8))
    }

    /// Everything shown so far.
    public var screen: String { screenText.value }

    /// Waits until `text` shows `occurrences` times (for at most 20 s).
    public func waitFor(_ text: String, occurrences: Int = 1) throws {
        for _ in 0..<400 {
            if screen.components(separatedBy: text).count - 1 >= occurrences { return }
            usleep(50_000)
        }
        process.terminate()
        throw CocoaError(
            .executableLoad, userInfo: [NSLocalizedDescriptionKey: "timed out waiting for \(text): \(screen)"])
    }

    /// Waits for the command to end and returns the screen (with its `EXIT=` line).
    public func waitForExit() throws -> String {
        try waitFor("EXIT=")
        process.waitUntilExit()
        return screen
    }
}
