import Foundation
import TokenVault

/// A vault file with tokens in two access groups and one without a group, and a key file scoped to
/// `teamA`.
public struct TwoTeamVault {
    /// Where everything lives.
    public let directory = TemporaryDirectory()
    /// The vault file.
    public let url: URL
    /// The full-access key file.
    public let keyFile: URL
    /// The key file of the slot scoped to `teamA`.
    public let scopedKeyFile: URL
    /// The full-access vault.
    public let vault: Vault
    /// Token storage over the full-access vault.
    public let full: VaultTokenStorage
    /// The token in `teamA`.
    public let teamA: Token
    /// The token in `teamB`.
    public let teamB: Token
    /// The token without a group: the first stored, so the default.
    public let ungrouped: Token

    /// Creates the vault, its tokens and the scoped key file.
    public init() throws {
        (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        full = try VaultTokenStorage(vault: vault)
        ungrouped = TestTokens.token(subject: "nobody")
        teamA = TestTokens.token(subject: "alice")
        teamB = TestTokens.token(subject: "bob")
        for (token, security) in [
            (ungrouped, [Credential.Security]()), (teamA, [.accessGroup("teamA")]), (teamB, [.accessGroup("teamB")]),
        ] {
            _ = try full.add(token: token, metadata: Token.Metadata(token: token, tags: ["t": "v"]), security: security)
        }
        scopedKeyFile = directory.file("teamA.key")
        try KeyFile.generate(at: scopedKeyFile)
        try vault.addUnlock(.keyFile(scopedKeyFile), accessGroups: ["teamA"])
    }

    /// The same file opened through the slot scoped to `teamA`.
    public func openScoped() throws -> Vault {
        try Vault.open(at: url, unlock: .keyFile(scopedKeyFile))
    }
}
