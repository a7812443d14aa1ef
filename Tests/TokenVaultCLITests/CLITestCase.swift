import Foundation
import TestSupport

/// A vault for CLI tests, with the options that unlock it.
struct CLIVault {
    let directory = TemporaryDirectory()
    var path: String { directory.file("vault.db").path }
    var passphraseFile: String { directory.file("passphrase").path }
    var unlock: [String] { ["--vault", path, "--passphrase-file", passphraseFile] }

    init(passphrase: String = "cli test passphrase", create: Bool = true) throws {
        try writePrivateFile(passphrase + "\n", to: URL(fileURLWithPath: passphraseFile))
        if create {
            let result = try CLIProcess.run(["init", "--kdf", "interactive"] + unlock)
            guard result.status == 0 else { throw CocoaError(.fileWriteUnknown) }
        }
    }

    /// Runs a command against this vault.
    func run(_ arguments: [String], input: String = "", environment: [String: String] = [:]) throws -> CLIProcess.Result
    {
        try CLIProcess.run(arguments + unlock, input: input, environment: environment)
    }
}
