import Foundation
import TestSupport
import Testing
import TokenVault

/// The command line through a key slot scoped to one access group.
@Suite struct CLIScopedUnlockTests {
    /// `list` skips the other groups' tokens (it used to exit 7 with a tamper message), and
    /// commands on another group's token or on the vault-wide default are refused (exit 4).
    @Test func theCLIListsOnlyTheScopedGroupsTokens() throws {
        let team = try TwoTeamVault()
        let options = ["--vault", team.url.path, "--key-file", team.scopedKeyFile.path]
        let listed = try CLIProcess.run(["list", "--json"] + options)
        #expect(listed.status == 0, "\(listed.stderr)")
        let rows = try #require(try listed.json() as? [[String: Any]])
        #expect(rows.compactMap { $0["id"] as? String } == [team.teamA.id])
        #expect(rows.first?["default"] as? Bool == false)
        #expect(try CLIProcess.run(["list"] + options).stdout.contains(team.teamA.id))
        let removal = try CLIProcess.run(["rm", team.teamB.id] + options)
        #expect(removal.status == 4, "\(removal.stderr)")
        #expect(try CLIProcess.run(["default"] + options).status == 4)
        #expect(try team.full.allIDs().count == 3)
    }
}
