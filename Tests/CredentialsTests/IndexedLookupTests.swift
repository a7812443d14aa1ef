import Foundation
import TestSupport
import Testing
import TokenVault

/// Look-ups by tag and by ID-token claim go through the vault's index: only the matching records
/// are opened, every write keeps the index in step, a key rotation files every record again, and
/// `verify()` tells a damaged index.
@Suite struct IndexedLookupTests {
    let directory = TemporaryDirectory()

    /// A key-file vault with `count` tokens: token `i` is tagged `user=u<i>` and `team=<i % 3>`, and
    /// its ID token has `sub` `s<i>` and `email` `e<i>@example.com`.
    private func filledVault(_ count: Int) throws -> (storage: VaultTokenStorage, url: URL, keyFile: URL, ids: [String])
    {
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        let storage = try VaultTokenStorage(vault: vault)
        var ids: [String] = []
        for index in 0..<count {
            let token = try Token(
                response: TestTokens.response(subject: "s\(index)", email: "e\(index)@example.com"),
                context: TestTokens.context)
            _ = try storage.add(
                token: token,
                metadata: Token.Metadata(token: token, tags: ["user": "u\(index)", "team": "\(index % 3)"]),
                security: [])
            ids.append(token.id)
        }
        return (storage, url, keyFile, ids)
    }

    @Test func findsByTagsAndClaimsWithoutOpeningOtherRecords() throws {
        let (storage, url, keyFile, ids) = try filledVault(30)
        #expect(try storage.metadata(taggedWith: ["user": "u7"]).map(\.id) == [ids[7]])
        #expect(
            try Set(storage.metadata(taggedWith: ["team": "1"]).map(\.id))
                == Set(stride(from: 1, to: 30, by: 3).map { ids[$0] }))
        #expect(try storage.metadata(taggedWith: ["team": "1", "user": "u7"]).map(\.id) == [ids[7]])
        #expect(try storage.metadata(taggedWith: ["team": "2", "user": "u7"]).isEmpty)
        #expect(try storage.metadata(taggedWith: ["user": "nobody"]).isEmpty)
        #expect(try storage.metadata(claim: "email", equals: "e7@example.com").map(\.id) == [ids[7]])
        #expect(try storage.metadata(claim: "sub", equals: "s12").map(\.id) == [ids[12]])
        // A claim outside the index is compared in every token's metadata.
        #expect(try storage.metadata(claim: "name", equals: "Jane Doe").count == 30)

        // With another record damaged, reading every record fails, and the indexed look-ups, which
        // never open it, still answer.
        let matchID = try #require(try storage.vault.tokenRecordIDForTesting(ids[7]))
        let damaged = try #require(try RawVaultFile(url).records().first { $0.kind == 4 && $0.id != matchID })
        var sealed = damaged.sealed
        sealed[sealed.count - 1] ^= 1
        try RawVaultFile(url).setSealed(sealed, forRecord: damaged.id)
        let reopened = try VaultTokenStorage(vault: Vault.open(at: url, unlock: .keyFile(keyFile)))
        #expect(throws: CredentialError.self) { try reopened.allMetadata() }
        #expect(try reopened.metadata(taggedWith: ["user": "u7"]).map(\.id) == [ids[7]])
        #expect(try reopened.metadata(claim: "email", equals: "e7@example.com").map(\.id) == [ids[7]])
    }

    @Test func theIndexShowsEqualityWithinAGroupOnly() throws {
        let team = try TwoTeamVault()
        let extra = TestTokens.token(subject: "carol")
        _ = try team.full.add(
            token: extra, metadata: Token.Metadata(token: extra, tags: ["t": "v"]), security: [.accessGroup("teamA")])
        let entries = try RawVaultFile(team.url).indexEntries()
        let recordsByTerm = Dictionary(grouping: entries, by: \.term).mapValues(\.count)
        // Four tokens share the tag t=v: the two in teamA share its hash, the others each have their
        // own (teamB's, and the vault-wide one's), and no other term is shared.
        #expect(recordsByTerm.values.sorted().last == 2)
        #expect(recordsByTerm.values.filter { $0 == 2 }.count == 2)  // the tag, and the shared email claim
        let valueBytes = Array("v".utf8) + Array("alice".utf8)
        #expect(entries.allSatisfy { $0.term.count == 16 && $0.term != valueBytes })
    }

    @Test func everyWriteMovesTheIndex() throws {
        let (storage, _, _, ids) = try filledVault(3)
        let stored = try #require(try storage.storedMetadata(id: ids[1]))
        let retagged = Token.Metadata(id: ids[1], tags: ["user": "renamed"], claims: stored.metadata.claims)
        let version = try storage.setMetadata(retagged, expectedVersion: stored.version)
        #expect(try storage.metadata(taggedWith: ["user": "u1"]).isEmpty)
        #expect(try storage.metadata(taggedWith: ["user": "renamed"]).map(\.id) == [ids[1]])
        #expect(try storage.metadata(claim: "sub", equals: "s1").map(\.id) == [ids[1]])

        let token = try #require(try storage.token(id: ids[1], prompt: nil, authenticationContext: nil))
        _ = try storage.replace(token: token, metadata: retagged, expectedVersion: version)
        #expect(try storage.metadata(taggedWith: ["user": "renamed"]).map(\.id) == [ids[1]])

        _ = try storage.remove(id: ids[1])
        #expect(try storage.metadata(taggedWith: ["user": "renamed"]).isEmpty)
        #expect(try storage.metadata(claim: "sub", equals: "s1").isEmpty)
        #expect(try storage.metadata(taggedWith: ["user": "u2"]).map(\.id) == [ids[2]])
        _ = try storage.vault.verify()
    }

    @Test func aKeyRotationFilesEveryRecordAgainUnderNewHashes() throws {
        let (storage, url, keyFile, ids) = try filledVault(5)
        let before = try RawVaultFile(url).indexEntries()
        let next = directory.file("next.key")
        try KeyFile.generate(at: next)
        try storage.vault.changeUnlock(from: .keyFile(keyFile), to: .keyFile(next))
        let after = try RawVaultFile(url).indexEntries()
        #expect(after.count == before.count)
        #expect(Set(after.map(\.term)).isDisjoint(with: before.map(\.term)))
        #expect(try storage.metadata(taggedWith: ["user": "u3"]).map(\.id) == [ids[3]])
        #expect(try storage.metadata(claim: "email", equals: "e4@example.com").map(\.id) == [ids[4]])
        _ = try storage.vault.verify()
    }

    @Test func verifyReportsAMissingOrUnexplainedEntryAndLookUpsIgnoreAForgedOne() throws {
        let (storage, url, _, ids) = try filledVault(3)
        let raw = try RawVaultFile(url)
        let entries = try raw.indexEntries()
        let first = try #require(entries.first)
        try raw.deleteIndexEntry(term: first.term, recordID: first.recordID)
        #expect(
            throws: VaultError.integrity(
                "1 index entries are missing: look-ups by tag or claim would not find every token")
        ) { try storage.vault.verify() }
        try raw.execute("INSERT INTO record_index VALUES (?, ?)", .blob(first.term), .blob(first.recordID))
        _ = try storage.vault.verify()

        // Token 0's tag filed under token 1's record as well: the look-up opens token 1, sees the
        // term is not among its sealed ones, and leaves it out; verify names the entry.
        let user0 = try #require(try storage.vault.tokenRecordIDForTesting(ids[0]))
        let user1 = try #require(try storage.vault.tokenRecordIDForTesting(ids[1]))
        let user0Terms = entries.filter { $0.recordID == user0 }.map(\.term)
        for term in user0Terms {
            try raw.execute("INSERT OR IGNORE INTO record_index VALUES (?, ?)", .blob(term), .blob(user1))
        }
        #expect(try storage.metadata(taggedWith: ["user": "u0"]).map(\.id) == [ids[0]])
        #expect(try storage.metadata(claim: "sub", equals: "s0").map(\.id) == [ids[0]])
        #expect(throws: VaultError.integrity("\(user0Terms.count) index entries belong to no token record")) {
            try storage.vault.verify()
        }
    }

    @Test func aScopedUnlockFindsOnlyItsOwnGroupsTokens() throws {
        let team = try TwoTeamVault()
        let scoped = try VaultTokenStorage(vault: team.openScoped())
        #expect(try scoped.metadata(taggedWith: ["t": "v"]).map(\.id) == [team.teamA.id])
        #expect(try scoped.metadata(claim: "sub", equals: "bob").isEmpty)
        #expect(try scoped.metadata(claim: "sub", equals: "alice").map(\.id) == [team.teamA.id])
        #expect(
            try Set(team.full.metadata(taggedWith: ["t": "v"]).map(\.id))
                == [team.teamA.id, team.teamB.id, team.ungrouped.id])
    }

    @Test func aScopedUnlockLeavesAFormatVersion2VaultAsItIs() throws {
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        let token = TestTokens.token(subject: "alice")
        try VaultTokenStorage.addAllInFormat2ForBenchmarking(
            [(token, Token.Metadata(token: token, tags: ["team": "a"]))], to: vault)
        let scopedKeyFile = directory.file("scoped.key")
        try KeyFile.generate(at: scopedKeyFile)
        try vault.addUnlock(.keyFile(scopedKeyFile), accessGroups: ["teamA"])
        let raw = try RawVaultFile(url)
        #expect(try raw.integer("SELECT format_version FROM vault_header") == 2)

        let scoped = try VaultTokenStorage(vault: Vault.open(at: url, unlock: .keyFile(scopedKeyFile)))
        #expect(try raw.integer("SELECT format_version FROM vault_header") == 2)
        #expect(try scoped.metadata(taggedWith: ["team": "a"]).isEmpty)  // read by opening, and not its group's

        let full = try VaultTokenStorage(vault: Vault.open(at: url, unlock: .keyFile(keyFile)))
        #expect(try raw.integer("SELECT format_version FROM vault_header") == 5)
        #expect(try full.metadata(taggedWith: ["team": "a"]).map(\.id) == [token.id])
    }

    /// More tokens than the upgrade re-seals at a time, and more index entries than it files at a
    /// time (four each: two tags, `sub` and the `email` they all share): every token reads back as
    /// it was read before the upgrade, and is found by its tags and indexed claims.
    @Test func anUpgradeOfManyTokensKeepsEveryTokensMetadataAndFilesItsTerms() throws {
        let (vault, url, _) = try TestVaults.keyFileVault(in: directory)
        let tokens = (0..<2_100).map { index in
            let token = TestTokens.token(subject: "user-\(index)")
            return (token: token, metadata: Token.Metadata(token: token, tags: ["n": "\(index)", "k": "\(index % 7)"]))
        }
        try VaultTokenStorage.addAllInFormat2ForBenchmarking(tokens, to: vault)
        let before = try Dictionary(
            uniqueKeysWithValues: vault.allTokenRecordMetadata().map {
                ($0.id, try TokenRecordCoding.decodeMetadata($0.metadata))
            })
        #expect(before.count == tokens.count)

        let storage = try VaultTokenStorage(vault: vault)
        #expect(try RawVaultFile(url).integer("SELECT format_version FROM vault_header") == 5)
        #expect(try vault.verify().formatVersion == 5)
        let after = try storage.allMetadata()
        #expect(after.count == before.count)
        for metadata in after {
            #expect(before[metadata.id] == metadata)
            #expect(before[metadata.id]?.claims == metadata.claims)
        }
        for index in [0, 2_047, 2_048, 2_099] {
            let id = tokens[index].token.id
            #expect(try storage.metadata(taggedWith: ["n": "\(index)"]).map(\.id) == [id])
            #expect(try storage.metadata(claim: "sub", equals: "user-\(index)").map(\.id) == [id])
        }
        #expect(try storage.metadata(taggedWith: ["k": "3"]).count == tokens.count / 7)
        #expect(tokens.count * 4 > IndexEntry.perPage)
        #expect(try storage.metadata(claim: "email", equals: "jane.doe@example.com").count == tokens.count)
    }

    /// A format version 2 vault holding a token bound to this device, copied to another machine:
    /// the token cannot be opened there, so the vault is left exactly as it is (no partial
    /// rewrite), and back on the first machine it upgrades.
    @Test func aVaultWithAnotherDevicesTokenStaysAtFormatVersion2() throws {
        func configuration(_ device: String) -> Vault.Configuration {
            Vault.Configuration(deviceSecretURL: directory.file(device))
        }
        let keyFile = directory.file("bound.key")
        try KeyFile.generate(at: keyFile)
        let url = directory.file("bound.vault")
        let vault = try Vault.create(at: url, unlock: .keyFile(keyFile), configuration: configuration("device.secret"))
        let bound = TestTokens.token(subject: "bound")
        #expect(
            try VaultTokenStorage(vault: vault).add(
                token: bound, metadata: Token.Metadata(token: bound, tags: ["kind": "bound"]),
                security: [.accessibility(.afterFirstUnlockThisDeviceOnly)]))
        let portable = (0..<300).map { index in
            let token = TestTokens.token(subject: "portable-\(index)")
            return (token: token, metadata: Token.Metadata(token: token, tags: ["kind": "portable"]))
        }
        try VaultTokenStorage.addAllInFormat2ForBenchmarking(portable, to: vault)
        #expect(try !vault.indexesTokenRecords)

        let copy = directory.file("copied/bound.vault")
        try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            try FileManager.default.copyItem(atPath: url.path + suffix, toPath: copy.path + suffix)
        }
        let elsewhere = try Vault.open(
            at: copy, unlock: .keyFile(keyFile), configuration: configuration("other.secret"))
        let raw = try RawVaultFile(copy)
        let before = try raw.records()
        #expect(try !elsewhere.upgradeTokenRecords { try TokenRecordCoding.upgradedMetadata($0.metadata) })
        let storage = try VaultTokenStorage(vault: elsewhere)
        #expect(try raw.records() == before)
        #expect(try raw.integer("SELECT format_version FROM vault_header") == 2)
        #expect(try storage.metadata(taggedWith: ["kind": "portable"]).count == portable.count)

        let home = try VaultTokenStorage(vault: vault)
        #expect(try vault.indexesTokenRecords)
        #expect(try home.metadata(taggedWith: ["kind": "bound"]).map(\.id) == [bound.id])
        #expect(try home.token(id: bound.id, prompt: nil, authenticationContext: nil) == bound)
    }

    @Test func aFormatVersion2VaultIsUpgradedInOneTransactionByItsFirstFullAccessUse() throws {
        struct Interrupted: Error {}
        let url = try Fixtures.copy("format-v1.vault", to: directory)
        let keyFile = try Fixtures.copy("format-v1.key", to: directory)
        let vault = try Vault.open(at: url, unlock: .keyFile(keyFile))
        #expect(try vault.verify().formatVersion == 2)
        #expect(try !vault.indexesTokenRecords)
        #expect(
            throws: VaultError.unsupportedFormat(
                "writing tokens needs the vault upgraded to format version 3, which a full-access unlock does first")
        ) {
            try vault.insertTokenRecord(
                id: "new", metadata: [], terms: [], secret: [1], policy: VaultPolicy(), defaultIfNone: false)
        }

        // An upgrade that fails after changing the schema and the header leaves nothing of itself.
        let raw = try RawVaultFile(url)
        let before = try raw.records()
        #expect(throws: Interrupted.self) { try vault.upgradeTokenRecords { _ in throw Interrupted() } }
        #expect(try raw.records() == before)
        #expect(try raw.integer("SELECT format_version FROM vault_header") == 2)
        #expect(try raw.integer("SELECT count(*) FROM sqlite_master WHERE name LIKE 'record_index%'") == 0)
        #expect(try raw.sealedDigest() == nil)  // still in the `integrity` table of format version 2

        let storage = try VaultTokenStorage(vault: vault)
        #expect(try raw.integer("SELECT format_version FROM vault_header") == 5)
        #expect(try raw.integer("SELECT count(*) FROM sqlite_master WHERE name = 'integrity'") == 0)
        #expect(try raw.sealedDigest() != nil)
        #expect(try vault.verify().formatVersion == 5)
        let found = try storage.metadata(taggedWith: ["fixture": "yes"])
        #expect(found.map(\.subject) == ["fixture@example.com"])
        #expect(try storage.metadata(claim: "sub", equals: "fixture@example.com").map(\.id) == found.map(\.id))
    }
}

extension CredentialTests {
    @Test func findByTagsAndByClaimGiveTheStoredInstances() throws {
        let alice = try Credential.store(TestTokens.token(subject: "alice"), tags: ["team": "a", "role": "admin"])
        let bob = try Credential.store(TestTokens.token(subject: "bob"), tags: ["team": "a"])
        #expect(try Credential.find(tags: ["team": "a"]).count == 2)
        #expect(try Credential.find(tags: ["team": "a", "role": "admin"]).map(\.id) == [alice.id])
        #expect(try Credential.find(tags: ["team": "a", "role": "admin"]).first === alice)
        #expect(try Credential.find(claim: "sub", equals: "bob").first === bob)
        #expect(try Credential.find(claim: "roles", equals: "user").count == 2)
        #expect(try Credential.find(claim: "sub", equals: "carol").isEmpty)
        #expect(try Credential.find(tags: [:]).count == 2)
    }
}
