import VaultStorage

extension Vault {
    /// Checks the whole vault: every record's presence and version against the sealed integrity
    /// digest (which catches deleted, re-added or rolled-back rows), and every record it holds the
    /// key for by decrypting it.
    ///
    /// - Returns: What was checked.
    /// - Throws: ``VaultError/integrity(_:)`` naming what failed, ``VaultError/locked``.
    public func verify() throws -> VaultReport {
        try read { db, keys in
            let state = try IntegrityState.load(from: db, keys: keys, vaultID: vaultID)
            let slotCount = try db.queryFirst("SELECT count(*) FROM key_slots") { Int($0.integer(0)) } ?? 0
            let rows = try db.query("SELECT \(RecordRow.columns) FROM records", row: RecordRow.init)
            var digest = IntegrityDigest()
            var authenticated = 0
            var failed = 0
            for row in rows {
                digest.add(row.integrityHash(keys: keys))
                // Items of the vault's own domain; access-group domains are checked by the
                // digest alone when their group name is not known here.
                guard let domain = try? Domain(policyCode: row.policyCode, accessGroup: nil),
                    row.domainID == keys.id(of: domain)
                else { continue }
                do {
                    _ = try row.open(domain: domain, keys: keys, vaultID: vaultID)
                    authenticated += 1
                } catch {
                    failed += 1
                }
            }
            if failed > 0 {
                throw VaultError.integrity("\(failed) of \(rows.count) records failed authentication")
            }
            guard digest == state.digest else {
                throw VaultError.integrity(
                    "the set of records does not match the integrity digest (a record was deleted, added or rolled back outside the vault)"
                )
            }
            return VaultReport(
                formatVersion: VaultFormat.currentVersion, keySlotCount: slotCount, recordCount: rows.count,
                authenticatedRecordCount: authenticated, generation: state.generation)
        }
    }
}
