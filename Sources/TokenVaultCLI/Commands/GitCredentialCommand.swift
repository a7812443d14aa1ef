import Foundation
import TokenVault

/// `git-credential get|store|erase`: git's credential helper protocol over the vault.
///
/// `get` answers with an OAuth access token (refreshed when about to expire) for an `https` host
/// a stored token is tagged for (`git-host=HOST`, username from `git-username`, else `oauth2`),
/// else with the username and password `store` kept for the server.
enum GitCredentialCommand {
    /// The operations git asks a helper for.
    enum Operation: String, OptionChoice {
        case get, store, erase
    }

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let word = try arguments.positional(0, "the operation (get, store or erase)")
        // git documents that a helper silently ignores operations it does not know.
        guard let operation = Operation(rawValue: word) else { return }
        let request = GitCredentialRequest(
            String(decoding: context.input ?? FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self))
        guard let key = request.keys.last else { return }
        let store = HelperCredentialStore(vault: try context.unlockedVault(), helper: "git")
        let token = try tokenCredential(for: request)
        switch operation {
        case .get:
            if let token {
                try await token.refreshIfNeeded()
                let username = token.tags["git-username"] ?? "oauth2"
                guard request.username == nil || request.username == username else { return }
                context.console.out("username=\(username)\npassword=\(try token.currentToken().accessToken)")
                return
            }
            for candidate in request.keys {
                guard let entry = try store.entry(candidate) else { continue }
                guard request.username == nil || request.username == entry.username else { continue }
                context.console.out("username=\(entry.username)\npassword=\(entry.secret)")
                return
            }
        case .store:
            // A host a token serves keeps no copy of the token, which would go stale.
            guard token == nil, let username = request.username, let password = request.password else { return }
            try store.save(.init(username: username, secret: password), under: request.keys.first ?? key)
        case .erase:
            for candidate in request.keys {
                guard let entry = try store.entry(candidate),
                    request.username == nil || request.username == entry.username
                else { continue }
                try store.remove(candidate)
            }
        }
    }

    /// The stored token tagged for the request's host, for `https` only.
    private static func tokenCredential(for request: GitCredentialRequest) throws -> Credential? {
        guard request.protocol == "https", let host = request.host else { return nil }
        return try Credential.find(tags: ["git-host": host]).min { $0.id < $1.id }
    }
}
