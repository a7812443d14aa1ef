import Foundation
import Locking
import TestSupport
import Testing
import TokenVault

extension CredentialTests {
    /// `find(where:)` served from the unlock's metadata cache still sees what another instance on
    /// the file (standing in for another process) writes. Part of the serialized suite: it uses the
    /// process-wide `Credential` state.
    @Suite struct CachedFind {
        let directory = TemporaryDirectory()

        @Test func findSeesEveryWriteOfAnotherInstanceOnItsNextCall() throws {
            let (owner, url) = try TestVaults.onDisk(in: directory)
            let keyFile = directory.file("app.key")
            try KeyFile.generate(at: keyFile)
            try owner.addUnlock(.keyFile(keyFile))
            let writer = try VaultTokenStorage(vault: owner)
            try Credential.use(Vault.open(at: url, unlock: .keyFile(keyFile)))
            func found(_ tag: String) throws -> [String] { try Credential.find { $0.tags["k"] == tag }.map(\.id) }
            let security = [Credential.Security.accessibility(.afterFirstUnlock)]
            #expect(try found("a").isEmpty)

            let token = TestTokens.token()
            _ = try writer.add(
                token: token, metadata: Token.Metadata(token: token, tags: ["k": "a"]), security: security)
            #expect(try found("a") == [token.id])
            #expect(Credential.allIDs == [token.id])

            let stored = try #require(try writer.storedMetadata(id: token.id))
            _ = try writer.setMetadata(Token.Metadata(token: token, tags: ["k": "b"]), expectedVersion: stored.version)
            #expect(try found("a").isEmpty)
            #expect(try found("b") == [token.id])

            // The owner's rotation re-seals every record under new keys; this unlock follows it.
            try owner.changeUnlock(
                from: TestVaults.unlock, to: .passphrase("another passphrase for the owner"),
                keyDerivation: TestVaults.fastKeyDerivation)
            #expect(try found("b") == [token.id])

            _ = try writer.remove(id: token.id, expectedVersion: nil)
            #expect(try found("b").isEmpty)
            #expect(Credential.allIDs.isEmpty)
        }

        /// Over thousands of tokens the filter is shared out between the cores: each token is
        /// still tested exactly once, and the matches keep the storage's order.
        @Test func findOverThousandsOfTokensTestsEachOnceAndKeepsTheStorageOrder() throws {
            let (vault, _, _) = try TestVaults.keyFileVault(in: directory)
            let storage = try VaultTokenStorage(vault: vault)
            try storage.addAllForBenchmarking(
                (0..<2_500).map { index in
                    let token = TestTokens.token(subject: "user-\(index)@example.com")
                    return (token, Token.Metadata(token: token, tags: ["n": String(index % 250)]))
                })
            Credential.tokenStorage = storage
            let tested = Locked<[String: Int]>([:])
            let found = try Credential.find { metadata in
                tested.withLock { $0[metadata.id, default: 0] += 1 }
                return metadata.tags["n"] == "3"
            }.map(\.id)

            let listed = try storage.allMetadata()
            #expect(listed.count == 2_500)
            #expect(tested.withLock { $0 } == Dictionary(uniqueKeysWithValues: listed.map { ($0.id, 1) }))
            #expect(found.count == 10)
            #expect(found == listed.filter { $0.tags["n"] == "3" }.map(\.id))
        }
    }
}
