/// The parts of a run, numbered as printed. They run in ``runOrder``: key derivation last,
/// because its 1 GiB Argon2 allocations would otherwise hide the vault's own peak RSS.
enum BenchSection: String, CaseIterable, Codable, Sendable {
    case seal
    case scaling
    case kdf
    case vault
    case refresh
    case fleet
    case idToken = "idtoken"
    case cli

    /// The order sections run and print in.
    static let runOrder: [BenchSection] = [.seal, .scaling, .vault, .refresh, .fleet, .idToken, .cli, .kdf]

    /// The heading printed above the section's tables.
    var title: String {
        switch self {
        case .seal: "1. Seal and open: library beside raw libsodium"
        case .scaling: "2. Multi-core scaling of seal and open"
        case .kdf: "3. Argon2id unlock and Vault.open to first read"
        case .vault: "4. Vault operations by number of stored tokens"
        case .refresh: "5. Refresh coalescing"
        case .fleet: "6. A fleet on PostgreSQL"
        case .idToken: "7. ID-token validation"
        case .cli: "8. The command line, one process per call, with and without the agent"
        }
    }
}
