import Foundation
import TestSupport
import Testing
import TokenVault

@Suite struct ScopedUnlockTests {
    let denied = CredentialError.storage(.accessDenied("this unlock is scoped to other access groups"))

    @Test func aScopedUnlockWritesOnlyItsOwnGroupsTokens() throws {
        let team = try TwoTeamVault()
        let scoped = try VaultTokenStorage(vault: team.openScoped())
        let other = team.teamB
        let before = try #require(try team.full.storedToken(id: other.id, prompt: nil, authenticationContext: nil))

        #expect(throws: denied) { try scoped.remove(id: other.id) }
        #expect(throws: denied) { try scoped.remove(id: team.ungrouped.id) }
        #expect(throws: denied) { try scoped.replace(token: other, metadata: before.metadata, expectedVersion: 1) }
        #expect(throws: denied) { try scoped.setMetadata(Token.Metadata(id: other.id), expectedVersion: 1) }
        #expect(throws: denied) { try scoped.storedToken(id: other.id, prompt: nil, authenticationContext: nil) }
        #expect(throws: denied) { try scoped.metadata(id: other.id) }
        #expect(throws: denied) { try scoped.acquireRefreshLease(id: other.id, owner: "scoped", duration: 3600) }
        #expect(throws: denied) { try scoped.acquireRefreshLease(id: team.ungrouped.id, owner: "scoped", duration: 60) }
        let stranger = TestTokens.token()
        for security in [[Credential.Security.accessGroup("teamB")], []] {
            #expect(throws: denied) {
                try scoped.add(
                    token: stranger, metadata: Token.Metadata(token: stranger, tags: [:]), security: security)
            }
        }
        // Nothing of the other groups changed, and their leases are free.
        #expect(try team.full.storedToken(id: other.id, prompt: nil, authenticationContext: nil) == before)
        #expect(try team.full.acquireRefreshLease(id: other.id, owner: "full", duration: 60))
        #expect(try team.full.allIDs().count == 3)

        // Its own group it reads and writes.
        let own = try #require(try scoped.storedToken(id: team.teamA.id, prompt: nil, authenticationContext: nil))
        _ = try scoped.setMetadata(Token.Metadata(id: team.teamA.id, tags: ["t": "w"]), expectedVersion: own.version)
        #expect(try team.full.metadata(id: team.teamA.id)?.tags == ["t": "w"])
        #expect(try scoped.acquireRefreshLease(id: team.teamA.id, owner: "scoped", duration: 60))
        try scoped.releaseRefreshLease(id: team.teamA.id, owner: "scoped")
        _ = try team.vault.verify()
    }

    @Test func aScopedUnlockNeitherReadsNorSetsTheDefault() throws {
        let team = try TwoTeamVault()
        let scoped = try VaultTokenStorage(vault: team.openScoped())
        #expect(try team.full.defaultTokenID() == team.ungrouped.id)

        #expect(throws: denied) { try scoped.defaultTokenID() }
        #expect(throws: denied) { try scoped.setDefaultTokenID(team.teamA.id) }
        #expect(throws: denied) { try scoped.setDefaultTokenID(nil) }
        #expect(try team.full.defaultTokenID() == team.ungrouped.id)

        // A token it stores never becomes the default, even in a vault without one.
        try team.full.setDefaultTokenID(nil)
        let added = TestTokens.token()
        #expect(
            try !scoped.add(
                token: added, metadata: Token.Metadata(token: added, tags: [:]), security: [.accessGroup("teamA")]))
        #expect(try team.full.defaultTokenID() == nil)
        // Nor does one it already stores (a replacement by a `CredentialsManager`).
        #expect(try !scoped.setDefaultTokenIDIfNone(team.teamA.id))
        #expect(try team.full.defaultTokenID() == nil)

        // Removing the default token through it leaves no default behind.
        try team.full.setDefaultTokenID(team.teamA.id)
        #expect(try !scoped.remove(id: team.teamA.id))
        #expect(try team.full.defaultTokenID() == nil)
        _ = try team.vault.verify()
    }

    /// A store remembers that the default is set. The same vault, unlocked again through the scoped
    /// slot, removes the default token, which leaves the default naming a missing token; unlocked
    /// with full access once more, its next store must become the default.
    @Test func aDefaultTokenRemovedThroughAScopedUnlockOfTheSameVaultLetsTheNextStoreBecomeTheDefault() throws {
        let team = try TwoTeamVault()
        try team.full.setDefaultTokenID(team.teamA.id)
        let before = TestTokens.token()
        #expect(try !team.full.add(token: before, metadata: Token.Metadata(token: before, tags: [:]), security: []))

        team.vault.lock()
        try team.vault.unlock(.keyFile(team.scopedKeyFile))
        #expect(try !VaultTokenStorage(vault: team.vault).remove(id: team.teamA.id))
        team.vault.lock()
        try team.vault.unlock(.keyFile(team.keyFile))

        let after = TestTokens.token()
        #expect(try team.full.add(token: after, metadata: Token.Metadata(token: after, tags: [:]), security: []))
        #expect(try team.full.defaultTokenID() == after.id)
        _ = try team.vault.verify()
    }

    @Test func listingUnderAScopedUnlockSkipsOtherGroups() throws {
        let team = try TwoTeamVault()
        let scoped = try VaultTokenStorage(vault: team.openScoped())
        #expect(try scoped.allIDs() == [team.teamA.id])
        #expect(try scoped.allMetadata().map(\.subject) == ["alice"])
        #expect(try Set(team.full.allIDs()) == [team.teamA.id, team.teamB.id, team.ungrouped.id])
    }
}

extension CredentialTests {
    /// `Credential`'s static API over a scoped unlock. Part of the serialized suite: it uses the
    /// process-wide `Credential` state.
    @Suite struct ScopedCredentials {
        @Test func lookupsSkipOtherGroupsAndTheDefaultIsHidden() throws {
            let team = try TwoTeamVault()
            try Credential.use(team.openScoped())
            #expect(Credential.allIDs == [team.teamA.id])
            #expect(try Credential.find(where: { _ in true }).map(\.id) == [team.teamA.id])
            #expect(Credential.default == nil)
            #expect(throws: CredentialError.self) { try Credential.defaultCredential() }
            #expect(throws: CredentialError.self) { try Credential.with(id: team.teamB.id) }
            let own = try #require(try Credential.with(id: team.teamA.id))
            #expect(throws: CredentialError.self) { try Credential.setDefault(own) }
            try own.setTags(["t": "mine"])
            try own.remove()
            #expect(try team.full.allIDs().count == 2)
        }
    }
}
