import Foundation
import TestSupport
import Testing
import TokenVault

/// The vault implementations the conformance suite runs against: a file, memory, PostgreSQL.
struct VaultKind: Sendable, CustomTestStringConvertible {
    let name: String
    let make: @Sendable (TemporaryDirectory) throws -> Vault

    var testDescription: String { name }

    static let unlock = TestVaults.unlock

    static let onDisk = VaultKind(name: "on disk") { directory in
        try TestVaults.onDisk(in: directory).0
    }

    static let inMemory = VaultKind(name: "in memory") { _ in
        try Vault.inMemory(unlock: unlock, keyDerivation: TestVaults.fastKeyDerivation)
    }

    /// A vault in a schema of its own in the test PostgreSQL server.
    static let postgres = VaultKind(name: "PostgreSQL") { _ in
        try Vault.create(
            postgres: PostgresTestServer.makeVaultSchema(), unlock: unlock, keyDerivation: TestVaults.fastKeyDerivation)
    }

    /// Every kind; the PostgreSQL one only when a server could be started (the reason it was not is
    /// printed as a SKIPPING line).
    static let all = [onDisk, inMemory] + (PostgresTestServer.isAvailable ? [postgres] : [])
}
