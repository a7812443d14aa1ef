import Foundation
import TestSupport
import Testing
import TokenVault

/// Format version 5 keeps the vault-wide sealed digest in a row of `records`; a vault of format
/// version 4 (or 3) gets there when it is opened, in one transaction, without any key.
@Suite struct DigestRowMigrationTests {
    let directory = TemporaryDirectory()
    static let grouped = SecretKey<String>("grouped", policy: VaultPolicy(accessGroup: "com.example.team"))

    /// A key-file vault with an item, an item of an access group and a token, rewritten as format
    /// version 4 left such a vault, and closed; returns the digest it had.
    func formatVersion4Vault() throws -> (url: URL, keyFile: URL, digest: [UInt8], token: Token) {
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        try vault.set("v", for: SecretKey<String>("item"))
        try vault.set("g", for: Self.grouped)
        let token = TestTokens.token(subject: "user@example.com")
        _ = try VaultTokenStorage(vault: vault).add(
            token: token, metadata: Token.Metadata(token: token, tags: ["team": "a"]), security: [])
        let digest = try #require(try RawVaultFile(url).sealedDigest())
        try vault.rewriteAsFormatVersion4ForTesting()
        vault.close()
        return (url, keyFile, digest, token)
    }

    /// Opening moves the digest, byte for byte, and marks the file version 5, which a version 4
    /// reader refuses as a newer format; no record changes, and everything reads and verifies.
    @Test func aFormatVersion4VaultMovesItsDigestIntoTheRecordsTableWhenOpened() throws {
        let (url, keyFile, digest, token) = try formatVersion4Vault()
        let raw = try RawVaultFile(url)
        let records = try raw.records()
        #expect(try raw.integer("SELECT format_version FROM vault_header") == 4)
        #expect(try raw.sealedDigest() == nil)
        #expect(try raw.blob("SELECT sealed FROM integrity") == digest)

        let vault = try Vault.open(at: url, unlock: .keyFile(keyFile))
        #expect(try raw.integer("SELECT format_version FROM vault_header") == 5)
        #expect(try raw.integer("PRAGMA user_version") == 5)
        #expect(try raw.integer("SELECT count(*) FROM sqlite_master WHERE name = 'integrity'") == 0)
        #expect(try raw.sealedDigest() == digest)
        #expect(try raw.records() == records)
        let report = try vault.verify()
        #expect(report.formatVersion == 5 && report.authenticatedRecordCount == records.count)
        #expect(try vault.get(SecretKey<String>("item")) == "v")
        #expect(try vault.get(Self.grouped) == "g")
        let stored = try VaultTokenStorage(vault: vault).token(id: token.id, prompt: nil, authenticationContext: nil)
        #expect(stored == token)
        try vault.set("w", for: SecretKey<String>("item"))
        #expect(try raw.sealedDigest() != digest)
        #expect(try vault.verify().authenticatedRecordCount == records.count)
    }

    /// A move that cannot finish (a row already holds the digest row's id) leaves the file exactly
    /// as version 4 had it: the upgrade is one transaction.
    @Test func aFailedMoveLeavesTheFormatVersion4FileAsItWas() throws {
        let (url, keyFile, digest, _) = try formatVersion4Vault()
        let raw = try RawVaultFile(url)
        try raw.execute(
            "INSERT INTO records (record_id, kind, domain, policy, version, sealed) VALUES (?, 1, x'', 0, 1, x'00')",
            .blob([UInt8](repeating: 0xFF, count: 16)))
        let records = try raw.records()
        #expect(throws: VaultError.self) { try Vault.open(at: url, unlock: .keyFile(keyFile)) }
        #expect(try raw.integer("SELECT format_version FROM vault_header") == 4)
        #expect(try raw.blob("SELECT sealed FROM integrity") == digest)
        #expect(try raw.sealedDigest() == [0])
        #expect(try raw.records() == records)
    }
}
