import Foundation
import Synchronization

/// `gpg`, run as a child process for `pass` stores: the plaintext goes through pipes only, never a
/// file. GnuPG finds its keys and agent as it always does (`$GNUPGHOME`, `~/.gnupg`).
enum GnuPG {
    /// `gpg` failed; the line is its own last line on stderr, which names keys and files, not values.
    struct Failure: LocalizedError {
        let action: String
        let line: String
        var errorDescription: String? { "gpg could not \(action): \(line)" }
    }

    /// The decrypted contents of `file` (`gpg --decrypt --batch --quiet`).
    ///
    /// - Throws: ``Failure`` when gpg fails or is not installed.
    static func decrypt(_ file: URL) throws -> Data {
        try run(["--decrypt", "--batch", "--quiet", "--", file.path], input: nil, action: "decrypt \(file.path)")
    }

    /// `plaintext` encrypted to `recipients` (`gpg --encrypt --batch`), as `pass insert` does it.
    ///
    /// - Throws: ``Failure`` when gpg fails (an unknown or untrusted recipient) or is not installed.
    static func encrypt(_ plaintext: Data, to recipients: [String], for name: String) throws -> Data {
        let arguments =
            ["--encrypt", "--batch", "--quiet", "--yes", "--no-encrypt-to", "--compress-algo=none"]
            + recipients.flatMap { ["--recipient", $0] } + ["--output", "-"]
        return try run(arguments, input: plaintext, action: "encrypt \(name)")
    }

    private static func run(_ arguments: [String], input: Data?, action: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gpg"] + arguments
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        process.standardOutput = stdout
        process.standardError = stderr
        // gpg may exit before it reads its input (an unknown recipient): writing then fails with
        // EPIPE instead of ending this process with SIGPIPE, until the writer below is done.
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        try process.run()
        // Written and read on their own threads, so a value larger than a pipe's buffer cannot
        // leave gpg and this process each waiting for the other.
        let written = DispatchSemaphore(value: 0)
        if let input {
            Thread {
                try? stdin.fileHandleForWriting.write(contentsOf: input)
                try? stdin.fileHandleForWriting.close()
                written.signal()
            }.start()
        } else {
            written.signal()
        }
        defer { written.wait() }
        let errors = Captured()
        let reader = Thread { errors.set(stderr.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: errors.wait(), as: UTF8.self)
            let line = text.split(whereSeparator: \.isNewline).last.map(String.init)
            throw Failure(
                action: action,
                line: process.terminationStatus == 127
                    ? "gpg is not installed" : line ?? "exit status \(process.terminationStatus)")
        }
        return output
    }

    /// gpg's stderr, read on another thread.
    private final class Captured: Sendable {
        private let data = Mutex(Data())
        private let done = DispatchSemaphore(value: 0)

        func set(_ value: Data) {
            data.withLock { $0 = value }
            done.signal()
        }

        func wait() -> Data {
            done.wait()
            return data.withLock { $0 }
        }
    }
}
