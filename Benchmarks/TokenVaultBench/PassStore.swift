import Foundation

/// A `pass` password store for the cli section's comparison: a throwaway GnuPG home in a
/// temporary folder with a test key that has no passphrase, its own `gpg-agent` (stopped by
/// ``stop()``, for that home only), and one store per size, filled with `secret-0`...
struct PassStore: ComparedStore {
    let name = "pass"
    let pass: URL
    let environment: [String: String]
    let valueFile: URL

    /// The GnuPG home and its key, shared by every store of the run.
    struct Keyring {
        let home: URL
        let fingerprint: String
        let environment: [String: String]
        let gpg: URL
        let gpgconf: URL

        /// Makes the home (mode 0700) under `directory`, starts its agent and generates the key.
        ///
        /// - Returns: `nil` when `gpg` or `gpgconf` is not installed.
        static func make(in directory: URL, environment: [String: String]) throws -> Keyring? {
            guard let gpg = ProcessCall.installed("gpg", environment),
                let gpgconf = ProcessCall.installed("gpgconf", environment)
            else { return nil }
            let home = directory.appendingPathComponent("gnupg")
            try FileManager.default.createDirectory(
                at: home, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            var environment = environment
            environment["GNUPGHOME"] = home.path
            try ProcessCall(program: gpgconf, arguments: ["--launch", "gpg-agent"], environment: environment).run()
            try ProcessCall(
                program: gpg,
                arguments: [
                    "--batch", "--pinentry-mode", "loopback", "--passphrase", "", "--quick-generate-key",
                    "TokenVault benchmark <bench@localhost>", "future-default", "default", "never",
                ], environment: environment
            ).run()
            let listing = Process()
            listing.executableURL = gpg
            listing.arguments = ["--batch", "--with-colons", "--list-keys"]
            listing.environment = environment
            let output = Pipe()
            listing.standardOutput = output
            listing.standardError = FileHandle.nullDevice
            try listing.run()
            let lines = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            listing.waitUntilExit()
            guard
                let fingerprint = lines.split(separator: "\n").first(where: { $0.hasPrefix("fpr:") })?
                    .split(separator: ":", omittingEmptySubsequences: false).dropFirst(9).first
            else { throw ProcessCall.Failed(command: "gpg --list-keys", status: listing.terminationStatus) }
            return Keyring(
                home: home, fingerprint: String(fingerprint), environment: environment, gpg: gpg, gpgconf: gpgconf)
        }

        /// Stops this home's `gpg-agent` (`gpgconf --kill`, which reaches only the agent of `GNUPGHOME`).
        func stop() {
            _ = try? ProcessCall(program: gpgconf, arguments: ["--kill", "gpg-agent"], environment: environment).run()
        }
    }

    /// A store at `directory` holding `secrets` secrets, each encrypted to the keyring's key by one
    /// `gpg --multifile` call, as `pass insert` would encrypt it.
    ///
    /// - Returns: `nil` when `pass` is not installed.
    static func make(
        at directory: URL, secrets: Int, keyring: Keyring, valueFile: URL
    ) throws -> PassStore? {
        guard let pass = ProcessCall.installed("pass", keyring.environment) else { return nil }
        var environment = keyring.environment
        environment["PASSWORD_STORE_DIR"] = directory.path
        try ProcessCall(program: pass, arguments: ["init", keyring.fingerprint], environment: environment).run()
        let plain = (0..<secrets).map { directory.appendingPathComponent("secret-\($0)") }
        for (index, file) in plain.enumerated() { try Data("value \(index)".utf8).write(to: file) }
        try ProcessCall(
            program: keyring.gpg,
            arguments: [
                "--batch", "--yes", "--trust-model", "always", "-r", keyring.fingerprint, "--multifile", "--encrypt",
            ]
                + plain.map(\.path), environment: environment
        ).run()
        for file in plain { try FileManager.default.removeItem(at: file) }
        return PassStore(pass: pass, environment: environment, valueFile: valueFile)
    }

    func read(_ index: Int) -> ProcessCall {
        ProcessCall(program: pass, arguments: ["show", "secret-\(index)"], environment: environment)
    }

    func add(_ index: Int) -> ProcessCall {
        ProcessCall(
            program: pass, arguments: ["insert", "--multiline", "--force", "added-\(index)"], environment: environment,
            input: valueFile)
    }
}
