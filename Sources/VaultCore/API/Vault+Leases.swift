import Foundation

/// Cross-process leases: named locks with an owner and an expiry, kept in the vault file so that
/// every process sharing it sees them. A crashed holder's lease frees as soon as another process on
/// the same machine sees its holder is gone, and otherwise when it expires.
///
/// Named leases are vault-wide, so they need a full-access unlock. The refresh lease of a token
/// belongs to the token's access group: it is sealed with that group's metadata key and counted in
/// that group's digest, so an unlock scoped to the group can take it and no other can.
extension Vault {
    private struct Lease: Codable {
        let owner: String
        let expires: Date
        /// `nil` in leases written before holders were recorded.
        let holder: LeaseHolder?
    }

    /// Takes the lease `name` for `owner` if it is free, expired, held by a process known to have
    /// exited, or already `owner`'s.
    ///
    /// - Parameters:
    ///   - name: The lease.
    ///   - owner: A unique id of the caller.
    ///   - duration: How long the lease holds unless released.
    ///   - now: The wall-clock time (leases are compared across processes).
    /// - Returns: Whether `owner` holds the lease now.
    /// - Throws: ``VaultError/accessDenied(_:)`` through a scoped unlock.
    package func acquireLease(_ name: String, owner: String, duration: TimeInterval, now: Date = Date()) throws -> Bool
    {
        try write(rerunnable: true) { transaction in
            guard transaction.keys.scope == nil else { throw Self.outOfScope }
            return try takeLease(name, group: nil, owner: owner, duration: duration, now: now, in: &transaction)
        }
    }

    /// Takes the lease that lets one caller at a time refresh the token `id`, as
    /// ``acquireLease(_:owner:duration:now:)`` does, after checking in the same transaction that
    /// the token is stored and its group is in this unlock's scope.
    ///
    /// - Parameters:
    ///   - id: The token id.
    ///   - owner: A unique id of the caller.
    ///   - duration: How long the lease holds unless released.
    ///   - now: The wall-clock time.
    /// - Returns: Whether `owner` holds the lease now.
    /// - Throws: ``VaultError/notFound(_:)`` when the token is not stored,
    ///   ``VaultError/accessDenied(_:)`` for a token of a group outside a scoped unlock.
    package func acquireTokenRefreshLease(
        id: String, owner: String, duration: TimeInterval, now: Date = Date()
    ) throws -> Bool {
        try write(rerunnable: true) { transaction in
            guard let group = try tokenGroup(id, in: transaction.records, keys: transaction.keys) else {
                throw VaultError.notFound("a token with this id")
            }
            return try takeLease(
                Self.refreshLeaseName(id), group: group, owner: owner, duration: duration, now: now,
                in: &transaction)
        }
    }

    /// A mark of the other processes' writes this process has heard of: take it before looking at
    /// a lease or a record another process may change, then wait with
    /// ``waitForChange(since:timeout:)`` if what it saw means waiting.
    ///
    /// - Returns: An opaque count, compared only by the wait.
    package func changeMark() -> UInt64 {
        backend.changeMark()
    }

    /// Returns once another process may have written to the vault after `mark` (a vault in
    /// PostgreSQL hears of each commit as it lands), or after `timeout`. A vault file hears of no
    /// commit and returns after at most 20 ms, so a caller always looks again and bounds its wait.
    ///
    /// - Parameters:
    ///   - mark: What ``changeMark()`` returned before the caller looked.
    ///   - timeout: The longest to wait.
    package func waitForChange(since mark: UInt64, timeout: Duration) async {
        await backend.waitForChange(since: mark, timeout: timeout)
    }

    /// Releases the lease `name` if `owner` holds it.
    ///
    /// - Parameters:
    ///   - name: The lease.
    ///   - owner: The holder.
    package func releaseLease(_ name: String, owner: String) throws {
        try release(name, owner: owner, groups: [nil])
    }

    /// Deletes the lease `name` of the first of `groups` that has one, if `owner` holds it.
    private func release(_ name: String, owner: String, groups: [String?]?) throws {
        try write(rerunnable: true) { transaction in
            let keys = transaction.keys
            let candidates = try groups ?? candidateGroups(in: transaction.records, keys: keys)
            for group in candidates where keys.isInScope(group) {
                let lookup = keys.lookup(kind: .lease, accessGroup: group, name: name)
                guard let existing = try transaction.row(lookup: lookup) else { continue }
                if try decode(existing, group: group, keys: keys).owner == owner { try transaction.delete(existing) }
                return
            }
        }
    }

    /// Releases the refresh lease of token `id` if `owner` holds it (also after the token was
    /// removed; only its holder can release it, so it needs no scope check).
    ///
    /// - Parameters:
    ///   - id: The token id.
    ///   - owner: The holder.
    package func releaseTokenRefreshLease(id: String, owner: String) throws {
        try release(Self.refreshLeaseName(id), owner: owner, groups: nil)
    }

    /// The name of the lease that guards refreshing token `id`.
    static func refreshLeaseName(_ id: String) -> String { "refresh " + id }

    private func takeLease(
        _ name: String, group: String?, owner: String, duration: TimeInterval, now: Date,
        in transaction: inout RecordTransaction
    ) throws -> Bool {
        let lookup = transaction.keys.lookup(kind: .lease, accessGroup: group, name: name)
        let existing = try transaction.row(lookup: lookup)
        if let existing {
            let lease = try decode(existing, group: group, keys: transaction.keys)
            let free = lease.owner == owner || lease.expires <= now || lease.holder?.isKnownDead == true
            guard free else { return false }
        }
        let lease = Lease(owner: owner, expires: now.addingTimeInterval(duration), holder: .current)
        try transaction.upsertMetadata(
            Array(try JSONEncoder().encode(lease)), kind: .lease, lookup: lookup, replacing: existing, group: group)
        return true
    }

    private func decode(_ row: RecordRow, group: String?, keys: KeyRing) throws -> Lease {
        guard
            let lease = try? JSONDecoder().decode(
                Lease.self, from: Data(row.open(key: keys.metadataKey(forGroup: group), vaultID: vaultID)))
        else { throw VaultError.integrity("a lease record is malformed") }
        return lease
    }
}
