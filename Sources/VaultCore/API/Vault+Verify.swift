import VaultCrypto

extension Vault {
    /// Checks the whole vault: every record's and key slot's presence and version against the sealed
    /// integrity digests (which catch deleted, re-added, edited or rolled-back rows and slots, such as
    /// a slot row put back from an old copy of the file), and every record this unlock holds the key
    /// for by decrypting it.
    ///
    /// With full access every digest is checked: the vault-wide one (vault-wide rows and key slots)
    /// and each access group's, and every group in the directory must have one. A scoped unlock
    /// checks its own groups' digests only. Records whose keys this unlock does not hold (classes
    /// whose session ended, items bound to another device) are covered by the digests only.
    ///
    /// In a format version 3 vault the index is rebuilt from the sealed terms of every token record
    /// this unlock opens and compared with the stored one: a missing entry (a record indexed look-ups
    /// would not find) is reported, and with full access so is an entry no record accounts for.
    ///
    /// The storage's structure is checked first (for a file, SQLite's `PRAGMA integrity_check`): a damaged
    /// b-tree or index page can hide a record from lookups by name while a full scan, and so the
    /// digest, still finds it.
    /// - Returns: What was checked.
    /// - Throws: ``VaultError/integrity(_:)`` naming what failed, ``VaultError/locked``.
    public func verify() throws -> VaultReport {
        try checkStructure()
        let device = try deviceSecret(creating: false)
        return try readConnection { db, keys in
            let records = db.records
            let slots = try db.keySlots()
            let slotRows = try db.keySlotRowCount()
            let groups = try candidateGroups(in: records, keys: keys)
            let scopes = keys.scopes(of: groups)
            var digests = try ScopedDigests(slots: slots, keys: keys, groups: scopes)
            let format = try db.formatVersion()
            var index = IndexCheck()
            var recordCount = 0
            var authenticated = 0
            var failed = 0
            // A page at a time: a vault of a million records is gigabytes sealed. Opening a row and
            // hashing its index terms is independent per row: on every core.
            try records.forEachPage(limit: Self.rowsPerPage) { page in
                try digests.add(page)
                let checks = try page.concurrentMap { row in
                    try self.check(
                        row, indexed: format >= 3, groups: groups, scopes: scopes, keys: keys, device: device)
                }
                for (row, check) in zip(page, checks) {
                    switch check {
                    case .unopened where row.kind == .token: index.unopenedRecords += 1
                    case .unopened: break
                    case .failedAuthentication: failed += 1
                    case .authenticated(let expectedEntries):
                        authenticated += 1
                        index.expect(expectedEntries)
                    }
                }
                recordCount += page.count
            }
            if failed > 0 {
                throw VaultError.integrity("\(failed) of \(recordCount) records failed authentication")
            }
            let generations = try digests.check(in: records, keys: keys, groups: scopes, vaultID: vaultID)
            if format >= 3 { try index.compare(with: records, fullAccess: keys.scope == nil) }
            return VaultReport(
                formatVersion: format, keySlotCount: slotRows, recordCount: recordCount,
                authenticatedRecordCount: authenticated,
                generation: generations[[]] ?? generations.values.max() ?? 0)
        }
    }

    /// What verifying one row found.
    private enum RowCheck: Sendable {
        /// This unlock holds no key for the row.
        case unopened
        case failedAuthentication
        /// The row opened; a token record's index entries as its sealed terms say (as
        /// ``IndexEntry/words``), none for other rows or without an index.
        case authenticated(expectedEntries: [SIMD4<UInt64>])
    }

    /// Opens `row` with the key this unlock holds for it, and, for a token record of a file with an
    /// index (`indexed`), names the index entries its sealed terms call for.
    ///
    /// - Throws: What reading an opened token record's envelope and domain throws, as
    ///   ``VaultError/integrity(_:)`` for a record id that is not 16 bytes.
    private func check(
        _ row: RecordRow, indexed: Bool, groups: [String?], scopes: [[UInt8]: String], keys: KeyRing,
        device: DeviceSecret?
    ) throws -> RowCheck {
        guard let key = try? sealingKey(of: row, groups: groups, scopes: scopes, keys: keys, device: device) else {
            return .unopened
        }
        guard let plaintext = try? row.open(key: key, vaultID: vaultID) else { return .failedAuthentication }
        guard indexed, row.kind == .token else { return .authenticated(expectedEntries: []) }
        return .authenticated(
            expectedEntries: try IndexCheck.entries(
                of: row, plaintext: plaintext, groups: groups, keys: keys, device: device))
    }

    /// The key a row was sealed with, if this unlock holds it: a metadata key, or the key of the
    /// domain among `groups` whose id the row carries.
    private func sealingKey(
        of row: RecordRow, groups: [String?], scopes: [[UInt8]: String], keys: KeyRing, device: DeviceSecret?
    ) throws -> SymmetricKey? {
        if row.kind.isMetadata {
            let group = try row.scope.map { scope in
                guard let group = scopes[scope] else {
                    throw VaultError.integrity("a record belongs to no known access group")
                }
                return group
            }
            return try keys.metadataSealingKey(kind: row.kind, group: group)
        }
        if let domain = try row.domain(among: groups.filter(keys.isInScope), keys: keys, device: device) {
            return try keys.key(for: domain, device: device)
        }
        return nil
    }
}

/// The index as the sealed terms of the token records say it should be, against the stored one.
private struct IndexCheck {
    /// The entries the records account for, as their ``IndexEntry/words``: a set of fixed-width
    /// keys, where a set of entries held two arrays on the heap per entry.
    private var expected: Set<SIMD4<UInt64>> = []
    /// Token records this unlock could not open: their entries cannot be accounted for.
    var unopenedRecords = 0

    /// The entries a token record's sealed terms call for, as ``IndexEntry/words``.
    ///
    /// - Throws: ``VaultError/integrity(_:)`` for a record id that is not 16 bytes.
    static func entries(
        of row: RecordRow, plaintext: [UInt8], groups: [String?], keys: KeyRing, device: DeviceSecret?
    ) throws -> [SIMD4<UInt64>] {
        guard let terms = try ItemEnvelope(decoding: plaintext).terms,
            let domain = try row.domain(among: groups.filter(keys.isInScope), keys: keys, device: device)
        else { return [] }
        let key = try keys.indexKey(forGroup: domain.accessGroup)
        return try terms.map { term in
            // Both schemas keep record ids and term hashes at 16 bytes, so every entry has words.
            guard let words = IndexEntry(term: term.hash(key: key), recordID: row.id).words else {
                throw VaultError.integrity("a record id is not 16 bytes")
            }
            return words
        }
    }

    /// Adds entries a record calls for (``entries(of:plaintext:groups:keys:device:)``).
    mutating func expect(_ entries: [SIMD4<UInt64>]) {
        expected.formUnion(entries)
    }

    /// Compares with the stored entries, a page at a time, taking each out of the expected set: what
    /// is left is missing, and a stored entry that was not there (a second copy too) is unexplained.
    /// Neither the stored entries nor two set differences are held.
    mutating func compare(with records: any RecordReader, fullAccess: Bool) throws {
        var stored = 0
        var accounted = 0
        try records.forEachIndexEntry { entry in
            stored += 1
            if let words = entry.words, expected.remove(words) != nil { accounted += 1 }
        }
        let missing = expected.count
        if missing > 0 {
            throw VaultError.integrity(
                "\(missing) index entries are missing: look-ups by tag or claim would not find every token")
        }
        guard fullAccess, unopenedRecords == 0 else { return }
        let unexplained = stored - accounted
        if unexplained > 0 {
            throw VaultError.integrity("\(unexplained) index entries belong to no token record")
        }
    }
}

extension Vault {
    /// The most problem lines of the storage engine an integrity error quotes.
    private static let quotedStructureProblems = 3

    /// Runs the backend's structural check over the whole vault (one snapshot).
    ///
    /// - Throws: ``VaultError/integrity(_:)`` quoting the engine's first problem lines, which name
    ///   tables, indexes and pages but never row contents; ``VaultError/locked``.
    private func checkStructure() throws {
        let problems = try readConnection { db, _ in try db.structureProblems(limit: Self.quotedStructureProblems) }
        if let problems {
            throw VaultError.integrity("the database structure is damaged (\(problems))")
        }
    }
}
