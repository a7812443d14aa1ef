import AgentProtocol
import Foundation
import TokenVault

/// What every command shares: the global options, the console, and how to unlock the vault.
struct CommandContext: Sendable {
    let arguments: ParsedArguments
    var console = Console()
    let environment = ProcessInfo.processInfo.environment
    /// In the agent: the vault it holds unlocked, which every command it runs uses.
    var agentVault: Vault?
    /// What the command would otherwise read itself (a secret's value), read by the agent's client.
    var input: Data?
    /// Whether the standard output the command's data ends up on is a terminal (the client's,
    /// when the agent runs it).
    var stdoutIsTerminal = isatty(STDOUT_FILENO) == 1

    init(arguments: ParsedArguments) { self.arguments = arguments }

    /// `--vault`, else `TOKENVAULT_PATH`, else `$XDG_DATA_HOME/tokenvault/vault.db`
    /// (`~/.local/share/tokenvault/vault.db`); a `postgresql://` URL names a PostgreSQL vault.
    ///
    /// - Throws: ``UsageError`` for a connection URL libpq cannot parse.
    func vaultLocation() throws -> VaultLocation {
        if let value = VaultPath.given(option: arguments.value("vault"), environment: environment) {
            return try VaultLocation(value)
        }
        return .file(VaultPath.defaultFile(environment: environment))
    }

    var keyFile: URL? { arguments.value("key-file").map(URL.init(fileURLWithPath:)) }

    var configuration: Vault.Configuration {
        Vault.Configuration(
            busyTimeout: .seconds(60), allowsInsecurePermissions: arguments.has("allow-insecure-permissions"))
    }

    var wantsJSON: Bool { arguments.has("json") }

    /// A passphrase given without a prompt: `--passphrase-fd`, `--passphrase-file`, or the
    /// `TOKENVAULT_PASSPHRASE` environment variable (weaker: other processes of the user may read it).
    func givenPassphrase() throws -> Passphrase? {
        if let fd = arguments.value("passphrase-fd") {
            guard let descriptor = Int32(fd) else { throw UsageError("--passphrase-fd needs a number") }
            return try Passphrase(readingLineFrom: descriptor)
        }
        if let file = arguments.value("passphrase-file") {
            return try passphrase(fromFile: file)
        }
        if let text = environment["TOKENVAULT_PASSPHRASE"], !text.isEmpty {
            return Passphrase(text)
        }
        return nil
    }

    /// A passphrase file, refused (exit 8) when others may access it unless
    /// `--allow-insecure-permissions` is given, as key files are.
    func passphrase(fromFile path: String) throws -> Passphrase {
        try Passphrase(
            contentsOf: URL(fileURLWithPath: path),
            allowsInsecurePermissions: arguments.has("allow-insecure-permissions"))
    }

    /// Unlock material for a new vault or slot: its passphrase (given or asked) and key file.
    func newUnlock(_ source: NewPassphrase, keyFile: URL?) throws -> VaultUnlock {
        switch (try source.read(), keyFile) {
        case (let passphrase?, let keyFile?): return .composite(passphrase: passphrase, keyFile: keyFile)
        case (let passphrase?, nil): return .passphrase(passphrase)
        case (nil, let keyFile?): return .keyFile(keyFile)
        case (nil, nil): throw UsageError("a vault needs a passphrase, a key file, or both")
        }
    }

    /// The passphrase of a new key slot (`passwd`, `keyslot add`): from `--new-passphrase-file`,
    /// else asked on the terminal. The current passphrase (`--passphrase-file`, `--passphrase-fd`,
    /// `TOKENVAULT_PASSPHRASE`) only opens the vault and is never taken as the new one.
    ///
    /// - Parameters:
    ///   - wanted: Whether the new slot has a passphrase at all.
    ///   - sources: What to suggest when there is no terminal to ask.
    func newSlotPassphrase(wanted: Bool, sources: String = "--new-passphrase-file") throws -> NewPassphrase {
        let given = try arguments.value("new-passphrase-file").map(passphrase(fromFile:))
        return try NewPassphrase(given: given, wanted: wanted, sources: sources)
    }

    /// The unlocked vault: the agent's, else opened as ``openVault()`` does.
    func unlockedVault() throws -> Vault {
        if let agentVault { return agentVault }
        return try openVault().0
    }

    /// Opens the vault: with the given passphrase or key file, else asking on the terminal (three
    /// tries for a wrong passphrase).
    func openVault() throws -> (Vault, VaultUnlock) {
        let location = try vaultLocation()
        try location.checkExists()
        if let passphrase = try givenPassphrase() {
            return try open(
                location, keyFile.map { .composite(passphrase: passphrase, keyFile: $0) } ?? .passphrase(passphrase))
        }
        if let keyFile {
            do {
                return try open(location, .keyFile(keyFile))
            } catch VaultError.invalidCredentials where TerminalPrompt.isAvailable {
                // The slot may be composite: ask for its passphrase below.
            }
        }
        for attempt in 1...3 {
            let passphrase = try TerminalPrompt.readSecret("Passphrase for \(location.promptName): ")
            let unlock =
                keyFile.map { VaultUnlock.composite(passphrase: passphrase, keyFile: $0) } ?? .passphrase(passphrase)
            do {
                return try open(location, unlock)
            } catch VaultError.invalidCredentials where attempt < 3 {
                console.error("Wrong passphrase, try again.")
            }
        }
        throw VaultError.invalidCredentials
    }

    /// Opens the vault and makes it `Credential`'s storage, which is how `main` finds it to close
    /// before exiting.
    private func open(_ location: VaultLocation, _ unlock: VaultUnlock) throws -> (Vault, VaultUnlock) {
        switch unlock {
        case .keyFile: console.progress("Unlocking the vault...")
        case .passphrase, .composite: console.progress("Unlocking the vault (Argon2id)...")
        }
        let vault = try location.open(unlock: unlock, configuration: configuration)
        try Credential.use(vault)
        return (vault, unlock)
    }

    /// The credential named `reference` (an id, or `default`).
    func credential(_ reference: String) throws -> Credential {
        let found =
            reference == "default"
            ? try Credential.defaultCredential() : try Credential.with(id: reference)
        guard let found else { throw CredentialError.notFound(reference) }
        return found
    }
}
