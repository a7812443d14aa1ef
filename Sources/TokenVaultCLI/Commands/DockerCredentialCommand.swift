import Foundation
import TokenVault

/// `docker-credential get|store|erase|list`: the protocol of Docker's credential helpers
/// (`docker-credential-tokenvault`), over the vault.
enum DockerCredentialCommand {
    /// The operations Docker asks a helper for.
    enum Operation: String, OptionChoice {
        case get, store, erase, list
    }

    /// What Docker's helpers answer for a server they hold nothing for, word for word: Docker
    /// recognises the message.
    static let notFound = "credentials not found in native keychain"

    /// `store`'s input and `get`'s answer.
    struct Credentials: Codable {
        let serverURL: String
        let username: String
        let secret: String

        enum CodingKeys: String, CodingKey {
            case serverURL = "ServerURL", username = "Username", secret = "Secret"
        }
    }

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let word = try arguments.positional(0, "the operation (get, store, erase or list)")
        guard let operation = Operation(rawValue: word) else {
            throw UsageError("docker-credential needs one of: " + Operation.choices.joined(separator: ", "))
        }
        // Read by the agent's client when an agent serves the vault.
        let input = context.input ?? FileHandle.standardInput.readDataToEndOfFile()
        let store = HelperCredentialStore(vault: try context.unlockedVault(), helper: "docker")
        let serverURL = String(decoding: input, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        switch operation {
        case .get:
            guard !serverURL.isEmpty, let entry = try store.entry(serverURL) else { throw notFoundExit(context) }
            let answer = Credentials(serverURL: serverURL, username: entry.username, secret: entry.secret)
            context.console.out(String(decoding: try JSONEncoder().encode(answer), as: UTF8.self))
        case .store:
            guard let given = try? JSONDecoder().decode(Credentials.self, from: input), !given.serverURL.isEmpty else {
                throw UsageError("docker-credential store needs {\"ServerURL\", \"Username\", \"Secret\"} on stdin")
            }
            try store.save(.init(username: given.username, secret: given.secret), under: given.serverURL)
        case .erase:
            guard !serverURL.isEmpty, try store.remove(serverURL) else { throw notFoundExit(context) }
        case .list:
            var servers: [String: String] = [:]
            for key in try store.keys() { servers[key] = try store.entry(key)?.username }
            try context.console.json(servers)
        }
    }

    /// Docker reads a helper's error from its stdout.
    private static func notFoundExit(_ context: CommandContext) -> ReportedExit {
        context.console.out(notFound)
        return ReportedExit(status: 1)
    }
}
