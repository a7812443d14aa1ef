import VaultCrypto
import VaultStorage

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
    /// The file's structure is checked first (SQLite's `PRAGMA integrity_check`): a damaged
    /// b-tree or index page can hide a record from lookups by name while a full scan, and so the
    /// digest, still finds it.
    /// - Returns: What was checked.
    /// - Throws: ``VaultError/integrity(_:)`` naming what failed, ``VaultError/locked``.
    public func verify() throws -> VaultReport {
        try checkStructure()
        let device = try deviceSecret(creating: false)
        return try readConnection { db, keys in
            let records: any RecordReader = SQLiteRecordStore(db)
            let slots = try KeySlot.all(in: db)
            let slotRows = try db.query("SELECT count(*) FROM key_slots") { Int($0.integer(0)) }.first ?? 0
            let rows = try records.rows()
            let groups = try candidateGroups(in: records, keys: keys)
            let scopes = keys.scopes(of: groups)
            let digests = try ScopedDigests(rows: rows, slots: slots, keys: keys, groups: scopes)
            var authenticated = 0
            var failed = 0
            for row in rows {
                guard let key = try? sealingKey(of: row, groups: groups, scopes: scopes, keys: keys, device: device)
                else { continue }
                do {
                    _ = try row.open(key: key, vaultID: vaultID)
                    authenticated += 1
                } catch {
                    failed += 1
                }
            }
            if failed > 0 {
                throw VaultError.integrity("\(failed) of \(rows.count) records failed authentication")
            }
            let generations = try digests.check(in: records, keys: keys, groups: scopes, vaultID: vaultID)
            return VaultReport(
                formatVersion: VaultFormat.currentVersion, keySlotCount: slotRows, recordCount: rows.count,
                authenticatedRecordCount: authenticated,
                generation: generations[[]] ?? generations.values.max() ?? 0)
        }
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

extension Vault {
    /// The most SQLite problem lines an integrity error quotes.
    private static let quotedStructureProblems = 3

    /// Runs SQLite's structural check over the whole file (one snapshot).
    ///
    /// - Throws: ``VaultError/integrity(_:)`` quoting SQLite's first problem lines, which name
    ///   tables, indexes and pages but never row contents; ``VaultError/locked``.
    private func checkStructure() throws {
        let problems = try readConnection { db, _ in try db.integrityProblems(limit: Self.quotedStructureProblems) }
        guard problems.isEmpty else {
            throw VaultError.integrity(
                "the database structure is damaged (SQLite: \(problems.joined(separator: "; ")))")
        }
    }
}
