import Foundation
import TestSupport
import Testing
import TokenVault

/// The two vault implementations the conformance suite runs against.
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

    static let all = [onDisk, inMemory]
}
