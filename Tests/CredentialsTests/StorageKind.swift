import Foundation
import TestSupport
import Testing
import TokenVault

/// The token storages the conformance suite runs against: a vault file, memory, a vault in PostgreSQL.
struct StorageKind: Sendable, CustomTestStringConvertible {
    let name: String
    let make: @Sendable (TemporaryDirectory) throws -> any TokenStorage

    var testDescription: String { name }

    static let vault = StorageKind(name: "vault") { directory in
        try VaultTokenStorage(vault: TestVaults.keyFileVault(in: directory).0)
    }
    static let inMemory = StorageKind(name: "in memory") { _ in InMemoryTokenStorage() }
    /// A vault in a schema of its own in the test PostgreSQL server.
    static let postgres = StorageKind(name: "vault in PostgreSQL") { _ in
        try VaultTokenStorage(
            vault: Vault.create(
                postgres: PostgresTestServer.makeVaultSchema(), unlock: TestVaults.unlock,
                keyDerivation: TestVaults.fastKeyDerivation))
    }
    /// Every kind; the PostgreSQL one only when a server could be started.
    static let all = [vault, inMemory] + (PostgresTestServer.isAvailable ? [postgres] : [])
}
