import Foundation
import TestSupport
import Testing
import TokenVault

/// The two token storages the conformance suite runs against.
struct StorageKind: Sendable, CustomTestStringConvertible {
    let name: String
    let make: @Sendable (TemporaryDirectory) throws -> any TokenStorage

    var testDescription: String { name }

    static let vault = StorageKind(name: "vault") { directory in
        try VaultTokenStorage(vault: TestVaults.keyFileVault(in: directory).0)
    }
    static let inMemory = StorageKind(name: "in memory") { _ in InMemoryTokenStorage() }
    static let all = [vault, inMemory]
}
