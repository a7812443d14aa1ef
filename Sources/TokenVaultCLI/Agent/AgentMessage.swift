import Foundation

/// The agent protocol: one request and one reply per connection, each a frame of JSON. Both carry
/// ``version``; an agent answers a request of another version with its own version and no work
/// done, and the client then unlocks the vault itself.
enum AgentMessage {
    /// Bumped whenever a request or reply changes shape or meaning.
    static let version = 1

    /// What a client asks.
    struct Request: Codable {
        enum Action: String, Codable {
            /// Run the command line in ``Request/arguments`` against the unlocked vault.
            case run
            /// Wipe the keys and stop.
            case lock
            /// Only answer, so `unlock` can tell an agent already serves.
            case ping
        }

        var version = AgentMessage.version
        let action: Action
        /// The vault the client means, as ``AgentSocketLocation/vaultIdentity(_:)`` names it; an
        /// agent serving another vault refuses.
        let vault: String
        /// The command line after the program name.
        var arguments: [String] = []
        /// What the command would have read itself (a secret's value), read by the client.
        var input: Data?
        /// Whether the client's standard output is a terminal.
        var stdoutIsTerminal = false
    }

    /// What the agent answers: what the command printed and how it exited.
    struct Reply: Codable {
        var version = AgentMessage.version
        let status: Int32
        var stdout = Data()
        var stderr = ""
        /// Set when the agent did not run the request (another version, another vault, a command
        /// it does not serve): the client runs the command itself.
        var declined: String?
    }

    /// Only the version, which every version of the protocol starts with.
    struct VersionProbe: Codable {
        let version: Int
    }

    static func encode(_ value: some Encodable) throws -> Data { try JSONEncoder().encode(value) }
}
