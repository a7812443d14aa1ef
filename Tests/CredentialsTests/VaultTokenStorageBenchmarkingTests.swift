import Foundation
import TestSupport
import Testing
import TokenVault
import VaultCore

/// The bulk paths the benchmark harness grows vaults with write what the public API writes: the
/// vault verifies, and the tokens are found through the index, or, for the format version 2
/// writer, after the upgrade the first storage over the vault performs.
@Suite struct VaultTokenStorageBenchmarkingTests {
    let directory = TemporaryDirectory()

    private static func tokens(_ range: Range<Int>) -> [(token: Token, metadata: Token.Metadata)] {
        range.map { index in
            let token = TestTokens.token(subject: "user-\(index)@example.com")
            return (token, Token.Metadata(token: token, tags: ["user": "user-\(index)"]))
        }
    }

    @Test func bulkAddedTokensVerifyAndAreFoundThroughTheIndex() throws {
        let (vault, _, _) = try TestVaults.keyFileVault(in: directory)
        let storage = try VaultTokenStorage(vault: vault)
        let tokens = Self.tokens(0..<5)
        try storage.addAllForBenchmarking(Array(tokens[0..<3]))
        try storage.addAllForBenchmarking(Array(tokens[3...]))

        let report = try vault.verify()
        #expect(report.formatVersion == 5)
        #expect(report.authenticatedRecordCount == report.recordCount)
        #expect(Set(try storage.allIDs()) == Set(tokens.map(\.token.id)))
        #expect(try storage.metadata(taggedWith: ["user": "user-3"]).map(\.id) == [tokens[3].token.id])
        #expect(try storage.token(id: tokens[4].token.id, prompt: nil, authenticationContext: nil) == tokens[4].token)
        #expect(throws: CredentialError.self) { try storage.addAllForBenchmarking([tokens[0]]) }
    }

    @Test func theFormat2WriterMakesAVaultTheStorageUpgrades() throws {
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        let tokens = Self.tokens(0..<4)
        try VaultTokenStorage.addAllInFormat2ForBenchmarking(Array(tokens[0..<2]), to: vault)
        try VaultTokenStorage.addAllInFormat2ForBenchmarking(Array(tokens[2...]), to: vault)
        #expect(try vault.verify().formatVersion == 2)
        #expect(try !vault.indexesTokenRecords)
        #expect(
            try RawVaultFile(url).integer("SELECT count(*) FROM sqlite_master WHERE name LIKE 'record_index%'") == 0)

        let reopened = try Vault.open(at: url, unlock: .keyFile(keyFile))
        let storage = try VaultTokenStorage(vault: reopened)
        let report = try reopened.verify()
        #expect(report.formatVersion == 5)
        #expect(report.authenticatedRecordCount == report.recordCount)
        #expect(try storage.metadata(taggedWith: ["user": "user-2"]).map(\.id) == [tokens[2].token.id])
        #expect(try storage.token(id: tokens[1].token.id, prompt: nil, authenticationContext: nil) == tokens[1].token)
    }
}
