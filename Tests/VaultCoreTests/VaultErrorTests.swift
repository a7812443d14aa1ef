import Foundation
import TestSupport
import Testing
import TokenVault

@Suite struct VaultErrorTests {
    static let everyCase: [VaultError] = [
        .invalidCredentials, .locked, .integrity("detail"), .unavailableOnThisDevice, .interactionRequired,
        .unsupportedPolicy("detail"), .notFound("detail"), .alreadyExists("detail"), .unsupportedFormat("detail"),
        .invalidKeyFile("detail"), .invalidArgument("detail"), .typeMismatch("detail"), .storage("detail"),
    ]

    @Test(arguments: everyCase)
    func everyCaseHasAnActionableDescription(error: VaultError) {
        let text = error.localizedDescription
        #expect(text.count > 15)
        #expect(text.hasSuffix("."))
        #expect(!text.contains("VaultError"))
    }

    @Test func noSecretReachesAnyErrorOrDescription() throws {
        let directory = TemporaryDirectory()
        let secretPassphrase = "pass-\(UUID().uuidString)"
        let secretValue = "value-\(UUID().uuidString)"
        let url = directory.file("v.db")
        let vault = try Vault.create(
            at: url, unlock: .passphrase(Passphrase(secretPassphrase)), keyDerivation: TestVaults.fastKeyDerivation)
        try vault.set(secretValue, for: SecretKey<String>("name"))
        var texts: [String] = [
            Passphrase(secretPassphrase).description, "\(Passphrase(secretPassphrase))",
            VaultUnlock.passphrase(Passphrase(secretPassphrase)).description,
        ]
        let failures: [() throws -> Void] = [
            { _ = try Vault.open(at: url, unlock: .passphrase(Passphrase(secretPassphrase + "x"))) },
            { _ = try vault.get(SecretKey<Int>("name")) },
            { try vault.changeUnlock(from: .passphrase("nope"), to: .passphrase(Passphrase(secretPassphrase))) },
            { _ = try Vault.create(at: url, unlock: .passphrase(Passphrase(secretPassphrase))) },
        ]
        for failure in failures {
            do {
                try failure()
                Issue.record("expected a failure")
            } catch {
                texts += [error.localizedDescription, "\(error)", String(reflecting: error)]
            }
        }
        for text in texts {
            #expect(!text.contains(secretPassphrase))
            #expect(!text.contains(secretValue))
        }
    }
}
