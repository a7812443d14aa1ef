import Foundation

/// Cross-process leases: named locks with an owner and an expiry, kept in the vault file so that
/// every process sharing it sees them. A crashed holder's lease frees as soon as another process on
/// the same machine sees its holder is gone, and otherwise when it expires.
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
    ///   - name: The lease (for a refresh, the token id).
    ///   - owner: A unique id of the caller.
    ///   - duration: How long the lease holds unless released.
    ///   - now: The wall-clock time (leases are compared across processes).
    /// - Returns: Whether `owner` holds the lease now.
    package func acquireLease(_ name: String, owner: String, duration: TimeInterval, now: Date = Date()) throws -> Bool
    {
        try write { transaction in
            let lookup = transaction.keys.lookup(kind: .lease, accessGroup: nil, name: name)
            let existing = try row(lookup: lookup, in: transaction.db)
            if let existing {
                let lease = try decode(existing, keys: transaction.keys)
                let free = lease.owner == owner || lease.expires <= now || lease.holder?.isKnownDead == true
                guard free else { return false }
            }
            let lease = Lease(owner: owner, expires: now.addingTimeInterval(duration), holder: .current)
            try transaction.upsertMetadata(
                Array(try JSONEncoder().encode(lease)), kind: .lease, lookup: lookup, replacing: existing)
            return true
        }
    }

    /// Releases the lease `name` if `owner` holds it.
    ///
    /// - Parameters:
    ///   - name: The lease.
    ///   - owner: The holder.
    package func releaseLease(_ name: String, owner: String) throws {
        try write { transaction in
            let lookup = transaction.keys.lookup(kind: .lease, accessGroup: nil, name: name)
            guard let existing = try row(lookup: lookup, in: transaction.db),
                try decode(existing, keys: transaction.keys).owner == owner
            else { return }
            try transaction.delete(existing)
        }
    }

    private func decode(_ row: RecordRow, keys: KeyRing) throws -> Lease {
        guard
            let lease = try? JSONDecoder().decode(
                Lease.self, from: Data(row.open(key: keys.metadataKey, vaultID: vaultID)))
        else { throw VaultError.integrity("a lease record is malformed") }
        return lease
    }
}
