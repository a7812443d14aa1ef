import Foundation
import OAuth2

extension Credential {
    /// Replaces the stored token and its tags with `token` (which has this credential's id) in one
    /// write: a new sign-in taking the place of the old one, so the record, its protection and its
    /// default status stay; and when there is no default, it becomes the default then, as a new
    /// token stored does (``store(_:tags:security:)``), posting `.defaultCredentialChanged`.
    ///
    /// It takes the refresh lease first, so no refresh of the old token (in any process) is written
    /// over the new one; while another caller holds it, nothing is written and it throws
    /// ``CredentialError/conflict(_:)``. The write is a compare-and-swap on the version it read.
    /// Becoming the default is a second step, which keeps a default another writer set meanwhile.
    /// - Parameters:
    ///   - token: The new token, with this credential's id and client.
    ///   - tags: The new tags.
    /// - Throws: ``CredentialError/removed(_:)``, ``CredentialError/conflict(_:)``,
    ///   ``CredentialError/storage(_:)``.
    func replaceToken(with token: Token, tags: [String: String]) throws {
        try replaceStoredToken(with: token, tags: tags)
        if try CredentialError.translating({ try storage.setDefaultTokenIDIfNone(id) }) {
            CredentialCoordinator.shared.postDefaultChanged(self)
        }
    }

    /// The replacing write of ``replaceToken(with:tags:)``.
    private func replaceStoredToken(with token: Token, tags: [String: String]) throws {
        _ = try checked { $0 }
        try CredentialError.translating {
            let owner = UUID().uuidString
            guard try storage.acquireRefreshLease(id: id, owner: owner, duration: Self.refreshLeaseDuration) else {
                throw CredentialError.conflict(id)
            }
            defer { try? storage.releaseRefreshLease(id: id, owner: owner) }
            let metadata = Token.Metadata(token: token, tags: tags)
            for _ in 0..<Self.maximumWriteAttempts {
                let generation = vault?.keyGeneration  // before the write: a wipe from now on counts
                guard let stored = try storage.storedMetadata(id: id) else { throw CredentialError.removed(id) }
                do {
                    _ = try storage.replace(token: token, metadata: metadata, expectedVersion: stored.version)
                } catch CredentialError.conflict {
                    continue
                }
                update(token: token, metadata: metadata, generation: generation)
                return
            }
            throw CredentialError.conflict(id)
        }
    }
}

extension Token {
    /// The same token under another id.
    func withID(_ id: String) -> Token {
        Token(
            id: id, tokenType: tokenType, accessToken: accessToken, refreshToken: refreshToken, idToken: idToken,
            deviceSecret: deviceSecret, scope: scope, issuedAt: issuedAt, expiresIn: expiresIn, context: context)
    }
}
