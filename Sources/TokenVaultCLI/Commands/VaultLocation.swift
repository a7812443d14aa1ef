import AgentProtocol
import Foundation
import TokenVault
internal import VaultStorage

/// Where the vault lives: a SQLite file, or a PostgreSQL database named by a `postgresql://` or
/// `postgres://` URL. Resolved once from `--vault` or `TOKENVAULT_PATH`; every message names it
/// through ``displayName``, which never holds the URL's password.
enum VaultLocation: Sendable {
    case file(URL)
    /// The URL as given (passed to the library only) and its options with the password masked.
    case postgres(connection: String, masked: String)

    /// Reads a `--vault` value: a connection URL, else a file path.
    ///
    /// - Throws: ``UsageError`` for a URL libpq cannot parse (the message does not quote it).
    init(_ value: String) throws {
        guard VaultPath.isPostgres(value) else {
            self = .file(URL(fileURLWithPath: value))
            return
        }
        guard let parsed = try? PostgresConnectionString(value) else {
            throw UsageError("--vault starts with postgresql:// but is not a connection URL libpq can read")
        }
        self = .postgres(connection: value, masked: parsed.description)
    }

    /// The vault as printed: the file's path, or the connection's options with `password=***`.
    var displayName: String {
        switch self {
        case .file(let url): url.path
        case .postgres(_, let masked): "PostgreSQL vault (\(masked))"
        }
    }

    /// The vault's file, for a command that only works on a file.
    ///
    /// - Parameter command: What needs the file, for the message.
    /// - Throws: ``UsageError`` for a PostgreSQL vault.
    func file(for command: String) throws -> URL {
        switch self {
        case .file(let url): return url
        case .postgres:
            throw UsageError(
                "\(command) works on a vault file; a PostgreSQL vault is backed up with the server's tools (pg_dump)")
        }
    }

    /// Creates the vault here.
    func create(unlock: VaultUnlock, keyDerivation: KeyDerivation, configuration: Vault.Configuration) throws
        -> Vault
    {
        switch self {
        case .file(let url):
            try Vault.create(at: url, unlock: unlock, keyDerivation: keyDerivation, configuration: configuration)
        case .postgres(let connection, _):
            try Vault.create(
                postgres: connection, unlock: unlock, keyDerivation: keyDerivation, configuration: configuration)
        }
    }

    /// Opens and unlocks the vault here.
    ///
    /// - Throws: ``VaultError/notFound(_:)`` when there is no vault file (a PostgreSQL vault's
    ///   absence is reported by the library after connecting), else what the library throws.
    func open(unlock: VaultUnlock, configuration: Vault.Configuration) throws -> Vault {
        switch self {
        case .file(let url):
            try Vault.open(at: url, unlock: unlock, configuration: configuration)
        case .postgres(let connection, _):
            try Vault.open(postgres: connection, unlock: unlock, configuration: configuration)
        }
    }

    /// Fails early, before asking for a passphrase, when there is no vault file.
    func checkExists() throws {
        guard case .file(let url) = self, !FileManager.default.fileExists(atPath: url.path) else { return }
        throw VaultError.notFound("no vault at \(url.path); create one with 'tokenvault init'")
    }

    /// The short name in a passphrase prompt.
    var promptName: String {
        switch self {
        case .file(let url): url.lastPathComponent
        case .postgres: "the PostgreSQL vault"
        }
    }
}
