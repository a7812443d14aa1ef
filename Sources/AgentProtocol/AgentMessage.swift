import Foundation

/// The agent protocol: one request and one reply per connection, each a frame of JSON. Both carry
/// ``version``; an agent answers a request of another version with its own version and no work
/// done, and the client then unlocks the vault itself.
package enum AgentMessage {
    /// Bumped whenever a request or reply changes shape or meaning.
    package static let version = 1

    /// What a client asks.
    package struct Request: Codable {
        package enum Action: String, Codable {
            /// Run the command line in ``Request/arguments`` against the unlocked vault.
            case run
            /// Wipe the keys and stop.
            case lock
            /// Only answer, so `unlock` can tell an agent already serves.
            case ping
        }

        package var version = AgentMessage.version
        package let action: Action
        /// The vault the client means, as ``AgentSocketLocation/vaultIdentity(_:)`` names it; an
        /// agent serving another vault refuses.
        package let vault: String
        /// The command line after the program name.
        package var arguments: [String] = []
        /// What the command would have read itself (a secret's value), read by the client.
        package var input: Data?
        /// Whether the client's standard output is a terminal.
        package var stdoutIsTerminal = false

        package init(
            action: Action, vault: String, arguments: [String] = [], input: Data? = nil, stdoutIsTerminal: Bool = false
        ) {
            self.action = action
            self.vault = vault
            self.arguments = arguments
            self.input = input
            self.stdoutIsTerminal = stdoutIsTerminal
        }
    }

    /// What the agent answers: what the command printed and how it exited.
    package struct Reply: Codable {
        package var version = AgentMessage.version
        package let status: Int32
        package var stdout = Data()
        package var stderr = ""
        /// Set when the agent did not run the request (another version, another vault, a command
        /// it does not serve): the client runs the command itself.
        package var declined: String?

        package init(status: Int32, stdout: Data = Data(), stderr: String = "", declined: String? = nil) {
            self.status = status
            self.stdout = stdout
            self.stderr = stderr
            self.declined = declined
        }
    }

    /// Only the version, which every version of the protocol starts with.
    package struct VersionProbe: Codable {
        package let version: Int
    }

    package static func encode(_ value: some Encodable) throws -> Data { try JSONEncoder().encode(value) }
}
