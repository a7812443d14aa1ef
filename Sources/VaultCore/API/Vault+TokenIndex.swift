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

    /// Whether the vault's token records are indexed (format version 3 and later): until then,
    /// ``tokenRecordMetadata(matchingAll:)`` answers `nil` and token writes are refused.
    package var indexesTokenRecords: Bool {
        get throws { try readConnection { db, _ in try db.formatVersion() >= 3 } }
    }

    /// Upgrades a format version 2 vault to the current version in one write transaction: every
    /// token record's metadata is re-encoded by `reencode`, which also names the record's index terms,
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
            do {
                return try backend.write { db -> Bool in
                    guard try db.formatVersion() == 2 else { return false }
                    let keys = try currentKeys(held, in: db)
                    guard keys.scope == nil else { return false }
                    let records = db.recordStore
                    let groups = try candidateGroups(in: records, keys: keys)
                    guard try checkedForUpgrade(db, keys: keys, groups: groups) else { return false }
                    try db.writeHeader(formatVersion: VaultFormat.currentVersion, epoch: keys.epoch)
                    try db.dropKindIndex()
                    var transaction = try RecordTransaction(db: db, keys: keys, vaultID: vaultID)
                    // Opening, decoding, encoding, sealing and hashing are independent per record:
                    // spread over the cores, a page at a time, the next page while this thread
                    // writes the last, so only two pages of opened and sealed records are held at
                    // once whatever the size of the vault. The pages go in record id order, the
                    // table's own (the kind index is gone).
                    var entries = PendingIndexEntries()
                    try records.forEachPage(
                        of: .token, limit: Self.upgradeChunk,
                        preparing: { chunk in
                            try chunk.concurrentMap { row in
                                try self.upgradedTokenRow(row, groups: groups, keys: keys, device: device, reencode)
                            }
                        }
                    ) { upgraded in
                        for result in upgraded {
                            guard let result else { throw UpgradeAbandoned() }
                            try transaction.replace(result.old, with: result.new)
                            try entries.append(contentsOf: result.entries)
                        }
                    }
                    try db.addIndexTables()
                    try entries.file(in: transaction)
                    try transaction.commit()
                    return true
                }
            } catch is UpgradeAbandoned {
                return false
            }
        }
    }

    /// How many token records the upgrade opens, re-seals and writes at a time.
    private static let upgradeChunk = 2_048

    /// A token row sealed again with its metadata re-encoded and its terms, or `nil` when it is
    /// bound to another device.
    private func upgradedTokenRow(
        _ row: RecordRow, groups: [String?], keys: KeyRing, device: DeviceSecret?,
        _ reencode: @Sendable (TokenRecordMetadata) throws -> (metadata: [UInt8], terms: [IndexTerm])
    ) throws -> UpgradedTokenRow? {
        let envelope: ItemEnvelope
        let domain: Domain
        do {
            (envelope, domain) = try openToken(row, groups: groups, keys: keys)
        } catch VaultError.unavailableOnThisDevice {
            return nil
        }
        let (metadata, terms) = try reencode(TokenRecordMetadata(envelope, domain: domain, row: row))
        let sealed = try RecordRow.seal(
            envelope.with(metadata: metadata, terms: terms).bytes, id: row.id, kind: .token, lookup: row.lookup,
            domainID: row.domainID, policyCode: row.policyCode, version: row.version + 1, scope: row.scope,
            key: keys.key(for: domain, device: domain.accessibility.isDeviceBound ? device : nil), vaultID: vaultID)
        let indexKey = try keys.indexKey(forGroup: domain.accessGroup)
        return UpgradedTokenRow(
            old: row, new: sealed,
            entries: Set(terms).map { IndexEntry(term: $0.hash(key: indexKey), recordID: row.id) })
    }

    /// Whether the vault may be upgraded, read a page at a time: the digests of every row and key
    /// slot must match (an upgrade must not hide damage), and every device-bound token row (and
    /// every row whose policy does not read) must open here, since a token bound to another device
    /// cannot be opened, so not upgraded, and the vault must then be left as it is. Checked before
    /// anything is written, so such a vault costs no re-sealing.
    ///
    /// - Returns: `false` when a token row is bound to another device.
    /// - Throws: ``VaultError/integrity(_:)`` when the digests do not match.
    private func checkedForUpgrade(
        _ db: any BackendWriteTransaction, keys: KeyRing, groups: [String?]
    ) throws -> Bool {
        let records = db.recordStore
        let scopes = keys.scopes(of: groups)
        var digests = try ScopedDigests(slots: db.keySlots(), keys: keys, groups: scopes)
        var opensHere = true
        try records.forEachPage(limit: Self.rowsPerPage) { page in
            try digests.add(page)
            if opensHere {
                opensHere = try opensEveryDeviceBoundRow(page.filter { $0.kind == .token }, groups: groups, keys: keys)
            }
        }
        _ = try digests.check(in: records, keys: keys, groups: scopes, vaultID: vaultID)
        return opensHere
    }

    /// Whether every device-bound token row among `rows` (and every row whose policy does not read)
    /// opens here.
    private func opensEveryDeviceBoundRow(_ rows: [RecordRow], groups: [String?], keys: KeyRing) throws -> Bool {
        let bound = rows.filter { row in
            (try? Domain(policyCode: row.policyCode, accessGroup: nil).accessibility.isDeviceBound) ?? true
        }
        let opens = try bound.concurrentMap { row -> Bool in
            do {
                _ = try self.openToken(row, groups: groups, keys: keys)
                return true
            } catch VaultError.unavailableOnThisDevice {
                return false
            }
        }
        return !opens.contains(false)
    }
}

/// A token row as the upgrade rewrites it.
private struct UpgradedTokenRow: Sendable {
    /// The row as read.
    let old: RecordRow
    /// The row sealed again, one version later.
    let new: RecordRow
    /// Its index entries.
    let entries: [IndexEntry]
}

/// Thrown inside the upgrade's transaction to roll it back when a token record turns out not to
/// open on this device after all; the upgrade then answers `false`.
private struct UpgradeAbandoned: Error {}

/// The index entries an upgrade files once the index tables exist, after every record: each held
/// as its four words (``IndexEntry/words``), 32 bytes and no allocation, where an ``IndexEntry``
/// holds two arrays, so the entries of every token of a large vault stay a small part of the
/// upgrade's memory.
private struct PendingIndexEntries {
    private var words: [SIMD4<UInt64>] = []

    /// Keeps `entries`.
    ///
    /// - Throws: ``VaultError/integrity(_:)`` for an entry whose term or record id is not 16 bytes,
    ///   which neither schema lets a row hold.
    mutating func append(contentsOf entries: [IndexEntry]) throws {
        for entry in entries {
            guard let words = entry.words else { throw VaultError.integrity("an index entry is not 32 bytes") }
            self.words.append(words)
        }
    }

    /// Files every entry in the index's order (``IndexEntry/<(_:_:)``), as the store inserts them,
    /// a page at a time. The words sort as the bytes do: comparing hundreds of thousands of byte
    /// arrays element by element took a few tenths of a second of the upgrade.
    mutating func file(in transaction: RecordTransaction) throws {
        words.sort { a, b in
            if a[0] != b[0] { return a[0] < b[0] }
            if a[1] != b[1] { return a[1] < b[1] }
            if a[2] != b[2] { return a[2] < b[2] }
            return a[3] < b[3]
        }
        var start = words.startIndex
        while start < words.endIndex {
            let end = min(start + IndexEntry.perPage, words.endIndex)
            try transaction.index(words[start..<end].map(IndexEntry.init(words:)))
            start = end
        }
        words = []
    }
}
