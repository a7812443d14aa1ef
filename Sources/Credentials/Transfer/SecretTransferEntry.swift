import Foundation

/// One secret on its way into or out of the vault: its name in the `secret` store and its value.
///
/// Never `Codable` and its description leaves the value out, so printing an entry reveals nothing.
public struct SecretTransferEntry: Sendable, Equatable, CustomStringConvertible {
    /// The secret's name (`work/github`).
    public let name: String
    /// The secret's bytes.
    public let value: Data

    /// An entry.
    ///
    /// - Parameters:
    ///   - name: The secret's name.
    ///   - value: Its bytes.
    public init(name: String, value: Data) {
        self.name = name
        self.value = value
    }

    /// The name alone.
    public var description: String { "SecretTransferEntry(\(name), value: <redacted>)" }

    /// Checks that no name occurs twice, as two entries of an export can map to one name.
    ///
    /// - Parameter entries: The entries to check.
    /// - Throws: ``SecretTransferError/duplicateName(_:)`` for the first name given twice.
    public static func checkUnique(_ entries: [SecretTransferEntry]) throws {
        var seen: Set<String> = []
        for entry in entries where !seen.insert(entry.name).inserted {
            throw SecretTransferError.duplicateName(entry.name)
        }
    }
}
