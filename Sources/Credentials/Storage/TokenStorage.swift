import Foundation
import OAuth2
import VaultCore

/// Where `Credential` keeps tokens. Implementations throw ``CredentialError``.
///
/// Two ship with the library: ``VaultTokenStorage`` (the encrypted vault) and
/// ``InMemoryTokenStorage`` (for tests); both pass the same conformance suite. A storage is a class:
/// `Credential` keeps one instance per token and storage, and tells storages apart by identity.
public protocol TokenStorage: AnyObject, Sendable {
    /// The default token's id, or `nil`.
    ///
    /// - Throws: ``CredentialError/storage(_:)``; ``VaultTokenStorage`` through a key slot scoped to
    ///   access groups gives ``VaultError/accessDenied(_:)`` (the default is vault-wide).
    func defaultTokenID() throws -> String?
    /// Sets or clears the default token.
    ///
    /// - Parameter id: A stored id, or `nil`.
    /// - Throws: ``CredentialError/notFound(_:)`` for an id that is not stored,
    ///   ``CredentialError/storage(_:)`` (``VaultError/accessDenied(_:)`` through a scoped unlock).
    func setDefaultTokenID(_ id: String?) throws
    /// Makes the stored token `id` the default when there is none, in one step (a default set
    /// meanwhile by another writer is kept): what ``add(token:metadata:security:)`` does for a new
    /// token, for one already stored.
    ///
    /// - Parameter id: A stored id.
    /// - Returns: Whether it became the default.
    /// - Throws: ``CredentialError/notFound(_:)`` for an id that is not stored,
    ///   ``CredentialError/storage(_:)``.
    func setDefaultTokenIDIfNone(_ id: String) throws -> Bool
    /// Every stored token id this storage can see.
    func allIDs() throws -> [String]
    /// Stores a new token; it becomes the default, in the same step, when there is none.
    ///
    /// - Returns: Whether it became the default.
    /// - Throws: ``CredentialError/alreadyExists(_:)`` when the id is stored.
    func add(token: Token, metadata: Token.Metadata, security: [Credential.Security]) throws -> Bool
    /// Replaces the stored token with the same id (after a refresh), with new metadata, if its
    /// record is still at `expectedVersion` (compare-and-swap): a writer that read an older version
    /// never overwrites a newer token.
    ///
    /// - Returns: The record's new version.
    /// - Throws: ``CredentialError/conflict(_:)`` when the record was written since it was read
    ///   (read it again and merge), ``CredentialError/notFound(_:)``.
    func replace(token: Token, metadata: Token.Metadata, expectedVersion: UInt64) throws -> UInt64
    /// Replaces a token's metadata (tags) if its record is still at `expectedVersion`; never needs
    /// a proof.
    ///
    /// - Returns: The record's new version.
    /// - Throws: ``CredentialError/conflict(_:)``, ``CredentialError/notFound(_:)``.
    func setMetadata(_ metadata: Token.Metadata, expectedVersion: UInt64) throws -> UInt64
    /// Removes a token, if its record is at `expectedVersion` when one is given; removing a missing
    /// id without an expected version does nothing.
    ///
    /// - Returns: Whether it was the default (the default is then cleared, in the same step).
    /// - Throws: ``CredentialError/conflict(_:)`` when an expected version is given and the record
    ///   is at another one, or gone.
    func remove(id: String, expectedVersion: UInt64?) throws -> Bool
    /// The stored token, asking `authenticationContext` for any proof it needs; `nil` when missing.
    func token(id: String, prompt: String?, authenticationContext: (any AuthenticationContext)?) throws -> Token?
    /// A token's metadata; `nil` when missing.
    func metadata(id: String) throws -> Token.Metadata?
    /// The stored token, its metadata and its record's version, from one snapshot, asking
    /// `authenticationContext` for any proof it needs; `nil` when missing.
    func storedToken(id: String, prompt: String?, authenticationContext: (any AuthenticationContext)?) throws
        -> StoredToken?
    /// A token's metadata and its record's version, without a proof; `nil` when missing.
    func storedMetadata(id: String) throws -> StoredMetadata?
    /// Every visible token's metadata: what `Credential.find(where:)` filters, without proofs.
    func allMetadata() throws -> [Token.Metadata]
    /// The metadata of every visible token carrying all of `tags` (``Token/Metadata/hasTags(_:)``),
    /// without proofs. ``VaultTokenStorage`` answers from its index, without opening other records.
    func metadata(taggedWith tags: [String: String]) throws -> [Token.Metadata]
    /// The metadata of every visible token whose ID-token claim `claim` equals `value`
    /// (``Token/Metadata/claim(_:equals:)``), without proofs. ``VaultTokenStorage`` answers from its
    /// index for the claims in ``Token/Metadata/indexedClaims``.
    func metadata(claim: String, equals value: String) throws -> [Token.Metadata]
    /// Takes the lease that lets one caller at a time refresh token `id`, across every process
    /// sharing the storage. Storages no other process can see take it at once.
    ///
    /// - Returns: Whether `owner` holds the lease now.
    func acquireRefreshLease(id: String, owner: String, duration: TimeInterval) throws -> Bool
    /// Releases the refresh lease of token `id` if `owner` holds it.
    func releaseRefreshLease(id: String, owner: String) throws
    /// A mark of the other processes' writes this storage has heard of, taken before a look (at a
    /// lease, a token) that may end in ``waitForChange(since:timeout:)``.
    ///
    /// - Returns: An opaque count, compared only by the wait.
    func changeMark() -> UInt64
    /// Returns once another process may have written after `mark`, or after `timeout`: waiting for a
    /// refresh lease this way wakes when its holder commits instead of at the next poll.
    ///
    /// - Parameters:
    ///   - mark: What ``changeMark()`` returned before the look.
    ///   - timeout: The longest to wait.
    func waitForChange(since mark: UInt64, timeout: Duration) async
}

extension TokenStorage {
    /// Reads the default, then sets it if there was none: two steps, so a default another writer
    /// sets between them is replaced. A storage that can do better implements it in one step.
    ///
    /// - Parameter id: A stored id.
    /// - Returns: Whether it became the default.
    public func setDefaultTokenIDIfNone(_ id: String) throws -> Bool {
        guard try defaultTokenID() == nil else { return false }
        try setDefaultTokenID(id)
        return true
    }

    /// Removes a token whatever its version; removing a missing id does nothing.
    ///
    /// - Returns: Whether it was the default (the default is then cleared, in the same step).
    public func remove(id: String) throws -> Bool {
        try remove(id: id, expectedVersion: nil)
    }

    /// Filters ``allMetadata()``: a storage without an index reads every token's metadata.
    public func metadata(taggedWith tags: [String: String]) throws -> [Token.Metadata] {
        try allMetadata().filter { $0.hasTags(tags) }
    }

    /// Filters ``allMetadata()``: a storage without an index reads every token's metadata.
    public func metadata(claim: String, equals value: String) throws -> [Token.Metadata] {
        try allMetadata().filter { $0.claim(claim, equals: value) }
    }

    /// A storage only this process sees needs no lease: the in-process single flight suffices.
    public func acquireRefreshLease(id: String, owner: String, duration: TimeInterval) throws -> Bool { true }

    /// Nothing to release.
    public func releaseRefreshLease(id: String, owner: String) throws {}

    /// A storage that hears of no other process's write has one mark.
    public func changeMark() -> UInt64 { 0 }

    /// Sleeps a short while (20 ms at most), for a storage that hears of no other process's write.
    public func waitForChange(since mark: UInt64, timeout: Duration) async {
        try? await Task.sleep(for: min(timeout, .milliseconds(20)))
    }
}
