import Foundation
import VaultCrypto

/// Re-seals the records of a vault from one key ring to another inside the caller's write
/// transaction: every record for a key rotation, or only the metadata rows for the version 1 to 2
/// migration (whose item rows keep their layout).
///
/// Each row is opened with the old keys, its name recovered from the plaintext, and sealed again
/// with the new keys under a new look-up tag and domain id and the next version; the row id stays.
/// The caller recomputes the integrity digest from the rows returned.
struct RecordReseal {
    let vaultID: [UInt8]
    let old: KeyRing
    let oldFormat: Int
    let new: KeyRing
    let device: DeviceSecret?
    /// `false` once no passphrase slot is left: the passcode class's items are destroyed, not re-sealed.
    let keepsPasscodeItems: Bool
    /// The vault-wide `nil` and every access group in the directory.
    let groups: [String?]
    /// Every slot id in the file, removed ones included: a slot's scope row is found by its id.
    let slotIDs: [[UInt8]]
    /// Slots that are going away: their scope rows go with them.
    let droppedSlotIDs: Set<[UInt8]>
    /// Whether the file has an index (format version 3): every token record is then filed again
    /// under the new keys' index terms.
    let reindexes: Bool

    /// Re-seals every row (or only the metadata rows) and writes them.
    ///
    /// - Parameters:
    ///   - rows: Every row of `records`, as the caller already read them to check the digests.
    ///   - records: The store to write to.
    ///   - onlyMetadata: Whether item rows keep their bytes (the version 1 migration).
    /// - Returns: Every record row the vault holds afterwards.
    /// - Throws: ``VaultError/unavailableOnThisDevice`` for an item bound to another device (its key
    ///   cannot be rebuilt here), ``VaultError/locked`` for a class whose keys are not held,
    ///   ``VaultError/integrity(_:)`` for a row that does not open.
    func run(_ rows: [RecordRow], in records: any RecordStore, onlyMetadata: Bool) throws -> [RecordRow] {
        let oldScopes = old.scopes(of: groups)
        var tokenIDs: [(id: String, group: String?)] = []
        var result: [RecordRow] = []
        result.reserveCapacity(rows.count)
        var metadataRows: [RecordRow] = []
        var entries: [IndexEntry] = []
        if reindexes { try records.removeAllIndexEntries() }
        for row in rows {
            if row.kind.isMetadata {
                metadataRows.append(row)
                continue
            }
            if onlyMetadata {
                // Item rows keep their bytes; they only get their group's scope (found by the keyed
                // domain id, so without opening them).
                let domain = try row.domain(among: groups, keys: old, device: device)
                if let domain, row.kind == .token, let (envelope, _) = try? openItem(row, groups: groups) {
                    tokenIDs.append((envelope.name, domain.accessGroup))
                }
                let scoped = RecordRow(
                    id: row.id, kind: row.kind, lookup: row.lookup, domainID: row.domainID, policyCode: row.policyCode,
                    version: row.version, sealed: row.sealed, scope: new.scopeID(of: domain?.accessGroup))
                try records.update(scoped, expectedVersion: row.version)
                result.append(scoped)
                continue
            }
            guard let (resealed, envelope, group) = try resealItem(row, groups: groups) else {
                try records.delete(row)
                continue
            }
            if row.kind == .token { tokenIDs.append((envelope.name, group)) }
            try records.update(resealed, expectedVersion: row.version)
            if reindexes, let terms = envelope.terms, !terms.isEmpty {
                let key = try new.indexKey(forGroup: group)
                entries += terms.map { IndexEntry(term: $0.hash(key: key), recordID: row.id) }
            }
            result.append(resealed)
        }
        try records.addIndexEntries(entries)
        let leaseNames = Dictionary(
            tokenIDs.map {
                (old.lookup(kind: .lease, accessGroup: $0.group, name: Vault.refreshLeaseName($0.id)), $0.id)
            },
            uniquingKeysWith: { first, _ in first })
        for row in metadataRows {
            let group: String?
            if let scope = row.scope {
                guard let known = oldScopes[scope] else {
                    throw VaultError.integrity("a record belongs to no known access group")
                }
                group = known
            } else {
                group = nil
            }
            guard let resealed = try resealMetadata(row, group: group, leaseNames: leaseNames) else {
                try records.delete(row)
                continue
            }
            try records.update(resealed, expectedVersion: row.version)
            result.append(resealed)
        }
        return result
    }

    private func openItem(_ row: RecordRow, groups: [String?]) throws -> (ItemEnvelope, Domain) {
        guard let domain = try row.domain(among: groups, keys: old, device: device) else {
            let accessibility = try Domain(policyCode: row.policyCode, accessGroup: nil).accessibility
            if accessibility.isDeviceBound {
                throw VaultError.unavailableOnThisDevice
            }
            throw VaultError.integrity("a record's domain does not match its policy")
        }
        let envelope = try ItemEnvelope(
            decoding: row.open(key: old.key(for: domain, device: device), vaultID: vaultID, format: oldFormat))
        let lookupGroup = row.kind == .token ? nil : domain.accessGroup
        guard row.lookup == old.lookup(kind: row.kind, accessGroup: lookupGroup, name: envelope.name) else {
            throw VaultError.integrity("a record does not hold the item it is filed under")
        }
        return (envelope, domain)
    }

    private func resealItem(_ row: RecordRow, groups: [String?]) throws -> (RecordRow, ItemEnvelope, String?)? {
        let (envelope, domain) = try openItem(row, groups: groups)
        if domain.accessibility.needsPasscode && !keepsPasscodeItems { return nil }
        let lookupGroup = row.kind == .token ? nil : domain.accessGroup
        let resealed = try RecordRow.seal(
            envelope.bytes, id: row.id, kind: row.kind,
            lookup: new.lookup(kind: row.kind, accessGroup: lookupGroup, name: envelope.name),
            domainID: new.id(of: domain, device: device), policyCode: row.policyCode, version: row.version + 1,
            scope: new.scopeID(of: domain.accessGroup), key: new.key(for: domain, device: device), vaultID: vaultID)
        return (resealed, envelope, domain.accessGroup)
    }

    /// The key a metadata row was sealed with under `keys`: before format version 2, every metadata
    /// row (factor records included) was sealed with the vault-wide metadata key.
    private func metadataKey(_ keys: KeyRing, kind: RecordKind, group: String?, format: Int) throws -> SymmetricKey {
        format < 2 ? try keys.metadataKey(forGroup: nil) : try keys.metadataSealingKey(kind: kind, group: group)
    }

    private func resealMetadata(_ row: RecordRow, group: String?, leaseNames: [[UInt8]: String]) throws -> RecordRow? {
        let plaintext = try row.open(
            key: metadataKey(old, kind: row.kind, group: group, format: oldFormat), vaultID: vaultID,
            format: oldFormat)
        let name: String
        switch row.kind {
        case .factor: name = try FactorRecord(decoding: plaintext).factor.rawValue
        case .groupDirectory: name = GroupDirectory.name
        case .defaultToken: name = Vault.defaultTokenName
        case .lease:
            // Only refresh leases of stored tokens are carried over; a lease whose token is gone guards
            // nothing, and named leases are short-lived: their holders take them again.
            guard let lookup = row.lookup, let token = leaseNames[lookup] else { return nil }
            name = Vault.refreshLeaseName(token)
        case .slotScope:
            guard let slot = slotID(of: row) else {
                throw VaultError.integrity("a key slot's access-group list is filed under no known slot")
            }
            if droppedSlotIDs.contains(slot) { return nil }
            name = SlotScopes.name(of: slot)
        case .keyValueItem, .token: preconditionFailure("not a metadata row")
        }
        let lookup = old.lookup(kind: row.kind, accessGroup: group, name: name)
        guard row.lookup == lookup else {
            throw VaultError.integrity("a metadata record is filed under the wrong name")
        }
        return try RecordRow.seal(
            plaintext, id: row.id, kind: row.kind, lookup: new.lookup(kind: row.kind, accessGroup: group, name: name),
            domainID: RecordRow.metadataDomainID, policyCode: 0, version: row.version + 1,
            scope: new.scopeID(of: group), key: new.metadataSealingKey(kind: row.kind, group: group),
            vaultID: vaultID)
    }

    /// The slot a scope row belongs to, found by trying every slot id in the file.
    private func slotID(of row: RecordRow) -> [UInt8]? {
        slotIDs.first { old.lookup(kind: .slotScope, accessGroup: nil, name: SlotScopes.name(of: $0)) == row.lookup }
    }
}
