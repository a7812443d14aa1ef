import Foundation

/// A throwaway GnuPG home with one passphrase-less key pair generated for the test, so `gpg`
/// decrypts and encrypts without a prompt. Its `gpg-agent` is stopped on `deinit`
/// (`gpgconf --kill all`), so no agent outlives the test.
public final class GnuPGHome: Sendable {
    /// The user id of the generated key, a valid `--recipient` and `.gpg-id` line.
    public static let recipient = "tokenvault-test@example.invalid"

    private let directory = TemporaryDirectory()

    /// The folder, for `$GNUPGHOME`.
    public var path: String { directory.url.path }

    /// `GNUPGHOME` for processes that should use this home.
    public var environment: [String: String] { ["GNUPGHOME": path] }

    /// Creates the home (0700, as gpg wants it) and generates the key pair.
    public init() throws {
        try setFileMode(0o700, directory.url)
        try run([
            "--batch", "--pinentry-mode", "loopback", "--passphrase", "", "--quick-generate-key",
            "TokenVault Test <\(Self.recipient)>", "future-default", "default", "never",
        ])
    }

    /// Encrypts `text` to the test key into `file`, as `pass insert` would.
    public func encrypt(_ text: String, to file: URL) throws {
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        _ = try run(
            ["--batch", "--yes", "--encrypt", "--recipient", Self.recipient, "--output", file.path], input: text)
    }

    /// What `file` decrypts to.
    public func decrypt(_ file: URL) throws -> String {
        String(decoding: try run(["--batch", "--quiet", "--decrypt", file.path]), as: UTF8.self)
    }

    @discardableResult
    private func run(_ arguments: [String], input: String = "") throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gpg", "--homedir", path] + arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(
                .executableLoad,
                userInfo: [
                    NSLocalizedDescriptionKey: "gpg \(arguments.first ?? "") failed: \(process.terminationStatus)"
                ])
        }
        return output
    }

    deinit {
        let stop = Process()
        stop.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        stop.arguments = ["gpgconf", "--homedir", path, "--kill", "all"]
        stop.standardOutput = FileHandle.nullDevice
        stop.standardError = FileHandle.nullDevice
        if (try? stop.run()) != nil { stop.waitUntilExit() }
    }
}
