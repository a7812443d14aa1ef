import Foundation

/// The `tokenvault` binary as one of the cli section's stores: `secret get` and `secret set` on a
/// vault, either unlocking it themselves (`--passphrase-file`) or through its agent.
struct TokenVaultCommandStore: ComparedStore {
    let name: String
    let binary: URL
    /// The global options: the vault, and the passphrase file when the call unlocks the vault itself.
    let options: [String]
    let environment: [String: String]
    let valueFile: URL
    /// What the names of added secrets start with, so the two ways of calling never add the same name.
    let addedPrefix: String

    func read(_ index: Int) -> ProcessCall {
        ProcessCall(
            program: binary, arguments: ["secret", "get", "secret-\(index)"] + options, environment: environment)
    }

    func add(_ index: Int) -> ProcessCall {
        ProcessCall(
            program: binary,
            arguments: ["secret", "set", "\(addedPrefix)-\(index)", "--value-file", valueFile.path]
                + options, environment: environment)
    }
}
