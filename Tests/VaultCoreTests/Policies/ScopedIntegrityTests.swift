import Foundation
import TestSupport
import Testing
import TokenVault
import VaultStorage

/// A slot scoped to access groups is given only what its groups need: no vault-wide integrity or
/// metadata key, so it cannot forge the digest of rows outside its groups, and each group's rows
/// are covered by that group's own digest.
@Suite struct ScopedIntegrityTests {
    @Test func aScopedSlotHoldsNoVaultWideIntegrityOrMetadataKey() throws {
        let team = try TwoTeamVault()
        let scoped = try Vault.open(at: team.url, unlock: .keyFile(team.scopedKeyFile))
        let held = Set(scoped.keyBuffersForTesting.map(\.label))
        #expect(!held.contains("integrity") && !held.contains("metadata") && !held.contains("master"))
        #expect(held.contains("group integrity") && held.contains("group metadata") && held.contains("lookup"))
        let full = Set(team.vault.keyBuffersForTesting.map(\.label))
        #expect(full.contains("integrity") && full.contains("metadata"))
    }

    @Test func scopedWritesTouchOnlyTheirGroupsDigest() throws {
        let team = try TwoTeamVault()
        let before = try team.vault.verify().generation
        let scoped = try Vault.open(at: team.url, unlock: .keyFile(team.scopedKeyFile))
        let mine = SecretKey<String>("a", policy: VaultPolicy(accessGroup: "teamA"))
        try scoped.set("written by team A", for: mine)
        try scoped.remove(mine)
        try scoped.set("again", for: mine)
        #expect(try scoped.verify().recordCount > 0)
        let after = try team.vault.verify()  // every digest, the group's included
        #expect(after.generation == before)  // the vault-wide digest was not touched
        #expect(throws: VaultError.accessDenied("this unlock is scoped to other access groups")) {
            try scoped.set("vault-wide", for: SecretKey<String>("ungrouped"))
        }
        #expect(try team.vault.get(mine) == "again")
    }

    @Test func removingAGroupsRowsOrItsDigestIsReported() throws {
        let team = try TwoTeamVault()
        try team.vault.set("a", for: SecretKey<String>("a", policy: VaultPolicy(accessGroup: "teamA")))
        let digests = try RawVaultFile(team.url).rows(of: "group_integrity")
        #expect(digests.count == 2)  // teamA and teamB
        for digest in digests {
            guard case .blob(let scope) = digest[0] else {
                Issue.record("a scope id that is not a blob")
                continue
            }
            // Every row of the group deleted: its digest no longer matches.
            let rowsGone = team.directory.file("rows-\(scope.hashValue).db")
            try RawVaultFile.copy(team.url, to: rowsGone)
            try RawVaultFile(rowsGone).execute("DELETE FROM records WHERE scope = ?", .blob(scope))
            expectIntegrityError(rowsGone, team.keyFile)
            // The rows and the digest deleted together: the group directory still names the group.
            let allGone = team.directory.file("all-\(scope.hashValue).db")
            try RawVaultFile.copy(team.url, to: allGone)
            let raw = try RawVaultFile(allGone)
            try raw.execute("DELETE FROM records WHERE scope = ?", .blob(scope))
            try raw.execute("DELETE FROM group_integrity WHERE scope = ?", .blob(scope))
            expectIntegrityError(allGone, team.keyFile)
            // A row moved to another group's scope.
            let moved = team.directory.file("moved-\(scope.hashValue).db")
            try RawVaultFile.copy(team.url, to: moved)
            try RawVaultFile(moved).execute(
                "UPDATE records SET scope = NULL WHERE record_id = (SELECT record_id FROM records WHERE scope = ? LIMIT 1)",
                .blob(scope))
            expectIntegrityError(moved, team.keyFile)
        }
        #expect(try team.vault.verify().recordCount > 0)
    }

    private func expectIntegrityError(_ url: URL, _ keyFile: URL, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try Vault.open(at: url, unlock: .keyFile(keyFile)).verify()
            Issue.record("verify() passed on \(url.lastPathComponent)", sourceLocation: sourceLocation)
        } catch VaultError.integrity {
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
        }
    }
}
