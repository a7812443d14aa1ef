import Foundation
import TestSupport
import Testing
import TokenVault

/// Two vaults open on one file, as two processes would have it: what one of them last read of the
/// default token must not outlive the other's write.
@Suite struct SharedVaultFileTests {
    let directory = TemporaryDirectory()

    static func add(_ subject: String, to storage: VaultTokenStorage) throws -> (id: String, becameDefault: Bool) {
        let token = TestTokens.token(subject: subject)
        let becameDefault = try storage.add(
            token: token, metadata: Token.Metadata(token: token, tags: [:]), security: [])
        return (token.id, becameDefault)
    }

    /// This vault's stores read the default (set, and its token stored) in every write; the other
    /// vault then removes that token, which clears the default. The next store here must see that
    /// and become the default, as a first store does.
    @Test func aDefaultClearedThroughAnotherVaultLetsTheNextStoreBecomeTheDefault() throws {
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        let here = try VaultTokenStorage(vault: vault)
        let there = try VaultTokenStorage(vault: Vault.open(at: url, unlock: .keyFile(keyFile)))
        let first = try Self.add("first", to: here)
        #expect(first.becameDefault)
        #expect(try !Self.add("second", to: here).becameDefault)

        #expect(try there.remove(id: first.id, expectedVersion: nil))
        let third = try Self.add("third", to: here)
        #expect(third.becameDefault)
        #expect(try here.defaultTokenID() == third.id)
        #expect(try there.defaultTokenID() == third.id)
    }
}
