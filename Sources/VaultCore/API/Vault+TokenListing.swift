/// Listing token records through the unlock session's ``TokenMetadataCache``: a listing opens only
/// the records written since the last one, by this process or any other.
extension Vault {
    /// The metadata of every token record this unlock can see, as `decoder` decodes it, each record
    /// decoded once while it stays unchanged in this unlock session.
    ///
    /// Lists what ``allTokenRecordMetadata()`` lists, in the same order.
    /// - Parameter decoder: The decoder; its type is what its values are kept under.
    /// - Returns: The decoded values.
    /// - Throws: What ``allTokenRecordMetadata()`` throws, and what `decoder` throws.
    package func tokenMetadata<Decoder: TokenMetadataDecoder>(
        decodedBy decoder: Decoder.Type
    ) throws -> [Decoder.Decoded] {
        let (cache, uncached) = try listedTokenRecords()
        guard let cache else { return try uncached.map(decoder.decode) }
        return try cache.decoded(by: decoder)
    }

    /// The ids of every token record this unlock can see, in the order ``allTokenRecordMetadata()``
    /// lists them: from the unlock session's cache, which opens only the records written since the
    /// last listing, and keeps their ids until the next change.
    ///
    /// - Throws: What ``allTokenRecordMetadata()`` throws.
    package func tokenRecordIDs() throws -> [String] {
        let (cache, uncached) = try listedTokenRecords()
        return cache?.listedIDs ?? uncached.map(\.id)
    }

    /// Every token record this unlock can see, from one read snapshot: the unlock session's cache,
    /// brought up to date with the snapshot, or, when the session changed keys during the read and
    /// nothing was cached, the records' metadata itself.
    func listedTokenRecords() throws -> (cache: TokenMetadataCache?, uncached: [TokenRecordMetadata]) {
        try readConnection { db, keys in
            let records = db.records
            func opener() throws -> TokenMetadataCache.RowOpener {
                let groups = try candidateGroups(in: records, keys: keys)
                return { row in
                    do {
                        return try self.metadata(of: row, groups: groups, keys: keys)
                    } catch VaultError.unavailableOnThisDevice, VaultError.accessDenied {
                        return nil
                    }
                }
            }
            // Only the cache of the session that holds these keys: had a lock or a new unlock come
            // in between, rows opened with these keys must not land in the new session's cache.
            guard let cache = session.withLock({ $0.keys === keys ? $0.tokenMetadata : nil }) else {
                return (nil, try records.rows(kind: .token).compactMap(opener()))
            }
            let stamp = TokenMetadataCache.Stamp(
                changes: try db.changeStamp(), epoch: keys.epoch,
                hasDeviceSecret: (try? deviceSecret(creating: false)) != nil)
            try cache.refresh(stamp: stamp, records: records, opener: opener)
            return (cache, [])
        }
    }
}
