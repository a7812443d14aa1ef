import VaultCrypto

/// Token records found through the index (keyed hashes of their terms) instead of by opening every
/// record, and the upgrade that indexes a format version 2 vault.
extension Vault {
    /// The metadata of the token records filed under every one of `terms`, this unlock can read.
    ///
    /// Each access group in reach is looked up under its own index key; every match is opened and
    /// kept only if its sealed terms hold all of `terms` and its domain is the group looked up, so an
    /// entry moved or forged in the file can hide a record (``verify()`` reports that) but never add
    /// one. Records bound to another device and other groups' records are skipped.
    ///
    /// - Parameter terms: The terms; at least one.
    /// - Returns: The matches, in record id order within each group; `nil` when the vault is not
    ///   indexed yet (format version 2), so the caller searches the metadata itself.
    /// - Throws: ``VaultError/locked``, ``VaultError/integrity(_:)``.
    package func tokenRecordMetadata(matchingAll terms: [IndexTerm]) throws -> [TokenRecordMetadata]? {
        precondition(!terms.isEmpty, "an index look-up needs a term")
        return try readConnection { db, keys -> [TokenRecordMetadata]? in
            guard try db.formatVersion() >= 3 else { return nil }
            let records = db.records
            let groups = try candidateGroups(in: records, keys: keys)
            var found: [TokenRecordMetadata] = []
            for group in groups {
                let key: SymmetricKey
                do {
                    key = try keys.indexKey(forGroup: group)
                } catch VaultError.accessDenied {
                    continue
                }
                var ids = try records.recordIDs(term: terms[0].hash(key: key))
                for term in terms.dropFirst() where !ids.isEmpty {
                    let also = Set(try records.recordIDs(term: term.hash(key: key)))
                    ids.removeAll { !also.contains($0) }
                }
                for id in ids {
                    guard let row = try records.row(id: id), row.kind == .token else { continue }
                    let envelope: ItemEnvelope
                    let domain: Domain
                    do {
                        (envelope, domain) = try openToken(row, groups: groups, keys: keys)
                    } catch VaultError.unavailableOnThisDevice, VaultError.accessDenied {
                        continue
                    }
                    guard domain.accessGroup == group, let sealed = envelope.terms, terms.allSatisfy(sealed.contains)
                    else { continue }
                    found.append(TokenRecordMetadata(envelope, domain: domain, row: row))
                }
            }
            return found
        }
    }

    /// Whether the vault's token records are indexed (format version 3): until then,
    /// ``tokenRecordMetadata(matchingAll:)`` answers `nil` and token writes are refused.
    package var indexesTokenRecords: Bool {
        get throws { try readConnection { db, _ in try db.formatVersion() >= 3 } }
    }

    /// Upgrades a format version 2 vault to version 3 in one write transaction: every token
    /// record's metadata is re-encoded by `reencode`, which also names the record's index terms,
    /// and the record is sealed again with its terms and filed in the index. Tokens themselves keep
    /// their bytes (an access-controlled one cannot be opened without a proof), and so does the
    /// record's policy.
    ///
    /// The digests are checked first: upgrading must not hide damage. Another process sees the
    /// vault before or after, never half-way.
    ///
    /// - Parameter reencode: The caller's metadata in its new encoding, and its terms; called for
    ///   several records at once, on as many threads as there are cores.
    /// - Returns: Whether the vault was upgraded: `false` when it already was, when this unlock is
    ///   scoped (it cannot reach every record), or when a token record is bound to another device
    ///   (it cannot be opened here); the vault then stays at version 2, readable and searchable by
    ///   opening its records.
    /// - Throws: ``VaultError/integrity(_:)`` when the vault fails verification, and what `reencode`
    ///   throws.
    @discardableResult
    package func upgradeTokenRecords(
        _ reencode: @Sendable (TokenRecordMetadata) throws -> (metadata: [UInt8], terms: [IndexTerm])
    ) throws -> Bool {
        let device = try deviceSecret(creating: false)
        return try Self.translatingErrors {
            let held = try unlockedKeys()
            return try backend.write { db -> Bool in
                guard try db.formatVersion() == 2 else { return false }
                let keys = try currentKeys(held, in: db)
                guard keys.scope == nil else { return false }
                let records = db.recordStore
                let groups = try candidateGroups(in: records, keys: keys)
                let scopes = keys.scopes(of: groups)
                let rows = try records.rows()
                _ = try ScopedDigests(rows: rows, slots: db.keySlots(), keys: keys, groups: scopes)
                    .check(in: records, keys: keys, groups: scopes, vaultID: vaultID)
                let opening = try rows.filter { $0.kind == .token }.concurrentMap {
                    row -> (RecordRow, ItemEnvelope, Domain)? in
                    do {
                        let (envelope, domain) = try self.openToken(row, groups: groups, keys: keys)
                        return (row, envelope, domain)
                    } catch VaultError.unavailableOnThisDevice {
                        return nil
                    }
                }
                // A token bound to another device cannot be opened, so not upgraded: leave the vault as it is.
                let opened = opening.compactMap { $0 }
                guard opened.count == opening.count else { return false }
                try db.addIndexTables()
                try db.writeHeader(formatVersion: VaultFormat.currentVersion, epoch: keys.epoch)
                var transaction = try RecordTransaction(db: db, keys: keys, vaultID: vaultID)
                let vaultID = vaultID
                // Decoding, encoding, sealing and hashing are independent per record: spread over
                // the cores. The writes then go in record id order, the table's own.
                let upgraded = try opened.concurrentMap { row, envelope, domain in
                    let (metadata, terms) = try reencode(TokenRecordMetadata(envelope, domain: domain, row: row))
                    let sealed = try RecordRow.seal(
                        envelope.with(metadata: metadata, terms: terms).bytes, id: row.id, kind: .token,
                        lookup: row.lookup, domainID: row.domainID, policyCode: row.policyCode,
                        version: row.version + 1, scope: row.scope,
                        key: keys.key(for: domain, device: domain.accessibility.isDeviceBound ? device : nil),
                        vaultID: vaultID)
                    let indexKey = try keys.indexKey(forGroup: domain.accessGroup)
                    return (row, sealed, Set(terms).map { IndexEntry(term: $0.hash(key: indexKey), recordID: row.id) })
                }
                for (row, sealed, _) in upgraded { try transaction.replace(row, with: sealed) }
                try transaction.index(upgraded.flatMap(\.2))
                try transaction.commit()
                return true
            }
        }
    }
}
