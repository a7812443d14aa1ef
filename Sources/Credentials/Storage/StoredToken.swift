import OAuth2
import VaultCore

/// A stored token with its metadata and the version of its record, read together: what a
/// compare-and-swap write (``TokenStorage/replace(token:metadata:expectedVersion:)``) starts from.
/// `Sendable`; its description and mirror never show a token string.
public struct StoredToken: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// The token.
    public let token: Token
    /// Its metadata (tags, ID-token claims).
    public let metadata: Token.Metadata
    /// The version of its record; every write makes a new one.
    public let version: UInt64
    /// The record as the vault sealed it, for a credential to keep instead of sealing the token
    /// again; `nil` from other storages and for an access-controlled token.
    let copy: SealedRecordCopy?

    /// A stored token.
    ///
    /// - Parameters:
    ///   - token: The token.
    ///   - metadata: Its metadata.
    ///   - version: The version of its record.
    public init(token: Token, metadata: Token.Metadata, version: UInt64) {
        self.init(token: token, metadata: metadata, version: version, copy: nil)
    }

    init(token: Token, metadata: Token.Metadata, version: UInt64, copy: SealedRecordCopy?) {
        self.token = token
        self.metadata = metadata
        self.version = version
        self.copy = copy
    }

    /// Equal when token, metadata and version are: the copy is how the token was read, not what.
    public static func == (lhs: StoredToken, rhs: StoredToken) -> Bool {
        lhs.token == rhs.token && lhs.metadata == rhs.metadata && lhs.version == rhs.version
    }

    public var description: String { "StoredToken(id: \(token.id), version: \(version))" }

    /// What `dump()` and debuggers show: the token's redacted mirror and the version.
    public var customMirror: Mirror {
        Mirror(self, children: ["token": token, "metadata": metadata, "version": version])
    }
}

/// A stored token's metadata and the version of its record, read without opening the token (so
/// without a proof): what ``TokenStorage/setMetadata(_:expectedVersion:)`` starts from. `Sendable`.
public struct StoredMetadata: Sendable, Equatable {
    /// The metadata (tags, ID-token claims).
    public let metadata: Token.Metadata
    /// The version of its record.
    public let version: UInt64

    /// Stored metadata.
    ///
    /// - Parameters:
    ///   - metadata: The metadata.
    ///   - version: The version of its record.
    public init(metadata: Token.Metadata, version: UInt64) {
        self.metadata = metadata
        self.version = version
    }
}
