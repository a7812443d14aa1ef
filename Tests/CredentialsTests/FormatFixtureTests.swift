import Foundation
import TestSupport
import Testing
import TokenVault

extension CredentialTests {
    /// A vault written by format version 1 (`VaultTestWorker write-fixture`) must stay readable:
    /// the first unlock migrates it to the current format in one transaction, and it can then be
    /// re-keyed like any other vault.
    @Test func readsTheCommittedFormatVersion1Fixture() throws {
        let scratch = TemporaryDirectory()
        let url = try Fixtures.copy("format-v1.vault", to: scratch)
        let keyFile = try Fixtures.copy("format-v1.key", to: scratch)
        let vault = try Vault.open(at: url, unlock: .keyFile(keyFile))
        let report = try vault.verify()
        #expect(report.formatVersion == 2)
        #expect(try RawVaultFile(url).integer("SELECT format_version FROM vault_header") == 2)
        #expect(report.recordCount == 6)  // 3 items, 1 token, the group directory, the default pointer
        #expect(report.authenticatedRecordCount == 6)
        #expect(try vault.get(SecretKey<String>("api-key")) == "fixture-api-key")
        #expect(try vault.get(SecretKey<Int>("counter")) == 42)
        #expect(
            try vault.get(SecretKey<String>("shared", policy: VaultPolicy(accessGroup: "com.example.fixture")))
                == "group-value")

        try Credential.use(vault)
        let credential = try #require(try Credential.find { $0.tags["fixture"] == "yes" }.first)
        #expect(credential.token.accessToken == "fixture-access-token")
        #expect(credential.token.refreshToken == "fixture-refresh-token")
        #expect(credential.token.idToken?.subject == "fixture@example.com")
        #expect(credential.token.issuedAt == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(Credential.default === credential)

        let newKey = scratch.file("new.key")
        try KeyFile.generate(at: newKey)
        try vault.changeUnlock(from: .keyFile(keyFile), to: .keyFile(newKey))
        let rekeyed = try Vault.open(at: url, unlock: .keyFile(newKey))
        #expect(try rekeyed.verify().authenticatedRecordCount == 6)
        #expect(try rekeyed.get(SecretKey<Int>("counter")) == 42)
        #expect(throws: VaultError.invalidCredentials) { try Vault.open(at: url, unlock: .keyFile(keyFile)) }
    }
}

extension CredentialTests {
    /// A format version 1 file with a record deleted outside the vault: the unlock that would
    /// migrate it checks the digest first, a page of records at a time, and refuses, so the file
    /// stays at version 1 with its legacy slot and every other row, for a backup to be restored.
    @Test func refusesToMigrateAFormatVersion1FileMissingARecord() throws {
        let scratch = TemporaryDirectory()
        let url = try Fixtures.copy("format-v1.vault", to: scratch)
        let keyFile = try Fixtures.copy("format-v1.key", to: scratch)
        let raw = try RawVaultFile(url)
        let before = try raw.records()
        #expect(try raw.integer("SELECT count(*) FROM key_slots") == 1)
        let legacySlot = try raw.blob("SELECT wrapped FROM key_slots")
        let deleted = try #require(before.first { $0.kind == Int64(RecordKind.keyValueItem.rawValue) })
        try raw.delete(deleted)

        var error: VaultError?
        do { _ = try Vault.open(at: url, unlock: .keyFile(keyFile)) } catch let caught as VaultError { error = caught }
        guard case .integrity(let detail) = error else {
            Issue.record("the damaged file was migrated: \(String(describing: error))")
            return
        }
        #expect(detail.contains("restore a backup"))
        #expect(try raw.integer("SELECT format_version FROM vault_header") == 1)
        #expect(try raw.records() == before.filter { $0 != deleted })
        #expect(try raw.integer("SELECT count(*) FROM key_slots") == 1)
        #expect(try raw.blob("SELECT wrapped FROM key_slots") == legacySlot)
    }
}

extension CredentialTests {
    /// A vault written by format version 2 (the same `write-fixture` of that version): its key slot
    /// opens, its records read, and the first `Credential.use` upgrades it to the current format,
    /// after which its token is found through the index.
    @Test func readsAndUpgradesTheCommittedFormatVersion2Fixture() throws {
        let scratch = TemporaryDirectory()
        let url = try Fixtures.copy("format-v2.vault", to: scratch)
        let keyFile = try Fixtures.copy("format-v2.key", to: scratch)
        let vault = try Vault.open(at: url, unlock: .keyFile(keyFile))
        #expect(try vault.verify().formatVersion == 2)
        #expect(try vault.get(SecretKey<Int>("counter")) == 42)

        try Credential.use(vault)
        let report = try vault.verify()
        #expect(report.formatVersion == 5)
        #expect(report.recordCount == 6 && report.authenticatedRecordCount == 6)
        let found = try Credential.find(tags: ["fixture": "yes"])
        #expect(found.map(\.token.accessToken) == ["fixture-access-token"])
        #expect(try Credential.find(claim: "sub", equals: "fixture@example.com").map(\.id) == found.map(\.id))
        #expect(Credential.default === found.first)
        #expect(
            try vault.get(SecretKey<String>("shared", policy: VaultPolicy(accessGroup: "com.example.fixture")))
                == "group-value")
    }

    /// A vault written by format version 3 (every record filed in `record_index`): opening it adds
    /// the empty `terms` column and the index's mark, moves the digest into its row of `records`,
    /// and changes nothing else; its token is found through the index, and a new token's entries
    /// are found too.
    @Test func opensTheCommittedFormatVersion3FixtureAndAddsTheIndexMark() throws {
        let scratch = TemporaryDirectory()
        let url = try Fixtures.copy("format-v3.vault", to: scratch)
        let keyFile = try Fixtures.copy("format-v3.key", to: scratch)
        let raw = try RawVaultFile(url)
        let before = try raw.records()
        #expect(try raw.integer("SELECT count(*) FROM sqlite_master WHERE name = 'record_index_state'") == 0)

        let vault = try Vault.open(at: url, unlock: .keyFile(keyFile))
        #expect(try raw.integer("SELECT format_version FROM vault_header") == 5)
        #expect(try raw.sealedDigest() != nil)
        #expect(try raw.records() == before)
        #expect(try vault.verify().authenticatedRecordCount == 6)

        try Credential.use(vault)
        let found = try Credential.find(tags: ["fixture": "yes"])
        #expect(found.map(\.token.accessToken) == ["fixture-access-token"])
        let added = try Credential.store(TestTokens.token(subject: "added@example.com"), tags: ["fixture": "yes"])
        #expect(Set(try Credential.find(tags: ["fixture": "yes"]).map(\.id)) == [found[0].id, added.id])
        _ = try vault.verify()
    }
}
