import AgentProtocol
import Foundation

extension AgentSocketLocation {
    init(vault: VaultLocation, environment: [String: String]) {
        self.init(vaultIdentity: Self.vaultIdentity(vault), environment: environment)
    }

    /// The vault's file with symbolic links resolved, or a PostgreSQL connection's masked options
    /// (never its password).
    static func vaultIdentity(_ vault: VaultLocation) -> String {
        switch vault {
        case .file(let url): fileIdentity(url)
        case .postgres(_, let masked): "postgres:" + masked
        }
    }
}
