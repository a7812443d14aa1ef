import Foundation

/// How a command line names its vault, before anything opens it: `--vault`, else
/// `TOKENVAULT_PATH`, else the default file under the XDG data directory.
package enum VaultPath {
    /// The URL schemes libpq accepts, which mark a `--vault` value as a PostgreSQL connection.
    package static let postgresSchemes = ["postgresql://", "postgres://"]

    /// The value that names the vault: `--vault`'s, else `TOKENVAULT_PATH`; `nil` (the default
    /// file) when neither is given or the one given is empty.
    package static func given(option: String?, environment: [String: String]) -> String? {
        guard let value = option ?? environment["TOKENVAULT_PATH"], !value.isEmpty else { return nil }
        return value
    }

    /// Whether `value` is a PostgreSQL connection URL rather than a file path.
    package static func isPostgres(_ value: String) -> Bool { postgresSchemes.contains(where: value.hasPrefix) }

    /// `$XDG_DATA_HOME/tokenvault/vault.db`, else `~/.local/share/tokenvault/vault.db`.
    package static func defaultFile(environment: [String: String]) -> URL {
        let dataHome =
            environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        return dataHome.appendingPathComponent("tokenvault/vault.db")
    }
}
