/// A token record as the vault sealed it, which the credential layer keeps between reads instead
/// of sealing the token again under the cache key (``CachedSecrets``).
///
/// The row opens only with its domain key, and only through ``Vault/openSealedCopy(_:)`` while the
/// key generation it was read or written in lasts: ``Vault/lock()``, a new unlock and the end of
/// the unlock session end that generation and drop the keys, which makes every such copy
/// unreadable at that moment, as they do a ``CachedSecrets`` copy. Kept in memory, the row tells
/// nothing the vault's storage does not hold already. An access-controlled record has none: its
/// value needs a proof, which a copy under the cache key keeps from one read to the next.
package struct SealedRecordCopy: Sendable {
    /// The generation whose keys may open it.
    package let generation: VaultKeyGeneration
    let row: RecordRow
    /// The access group of the record's domain: where its key is found.
    let accessGroup: String?

    /// A copy of `row`, sealed under `domain`'s key, for `generation`; `nil` for a record whose
    /// value is behind access control.
    init?(_ row: RecordRow, domain: Domain, generation: VaultKeyGeneration?) {
        guard let generation, domain.accessControl.isEmpty else { return nil }
        self.generation = generation
        self.row = row
        accessGroup = domain.accessGroup
    }
}

extension Vault {
    /// The value bytes of a record copy. Counts as activity, as any read through the vault does.
    ///
    /// - Returns: The value, or `nil` when the copy's generation has ended, the keys it was sealed
    ///   under were replaced (a key rotation), or it does not open: the caller reads the record
    ///   again.
    package func openSealedCopy(_ copy: SealedRecordCopy) -> [UInt8]? {
        let now = configuration.clock.now
        // The keys and the generation from one look at the session, so a new unlock in between
        // cannot lend its keys to a copy of the ended generation.
        let keys = session.withLock { session -> KeyRing? in
            session.enforceTimeouts(now: now, configuration: configuration)
            guard let keys = session.keys, session.cacheKey?.generation == copy.generation else { return nil }
            session.lastActivity = now
            return keys
        }
        guard let keys,
            case .value(let value)? = try? openItem(
                copy.row, groups: [copy.accessGroup], keys: keys, readingTerms: false
            ).envelope.content
        else { return nil }
        return value
    }
}
