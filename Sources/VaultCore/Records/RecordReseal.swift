import Foundation
import VaultCrypto
import VaultStorage

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
    /// Every slot id in the file, removed ones included: a slot's scope row is found by its id.
    let slotIDs: [[UInt8]]
    /// Slots that are going away: their scope rows go with them.
    let droppedSlotIDs: Set<[UInt8]>

    /// Re-seals every row (or only the metadata rows) and writes them.
    ///
    /// - Returns: Every record row the vault holds afterwards.
    /// - Throws: ``VaultError/unavailableOnThisDevice`` for an item bound to another device (its key
    ///   cannot be rebuilt here), ``VaultError/locked`` for a class whose keys are not held,
    ///   ``VaultError/integrity(_:)`` for a row that does not open.
    func run(in db: SQLiteConnection, onlyMetadata: Bool) throws -> [RecordRow] {
        let rows = try db.query("SELECT \(RecordRow.columns) FROM records", row: RecordRow.init)
        let groups = try directoryGroups(rows)
        var tokenIDs: [String] = []
        var result: [RecordRow] = []
        result.reserveCapacity(rows.count)
        var metadataRows: [RecordRow] = []
        for row in rows {
            if row.kind.isMetadata {
                metadataRows.append(row)
                continue
            }
            if onlyMetadata {
                // Only lease rows need the names; an item this ring cannot open has no lease it can keep.
                if row.kind == .token, let name = try? openItem(row, groups: groups).0.name { tokenIDs.append(name) }
                result.append(row)
                continue
            }
            guard let (resealed, name) = try resealItem(row, groups: groups) else {
                try db.run("DELETE FROM records WHERE record_id = ?", [.blob(row.id)])
                continue
            }
            if row.kind == .token { tokenIDs.append(name) }
            try write(resealed, in: db)
            result.append(resealed)
        }
        let leaseNames = Dictionary(
            tokenIDs.map { (old.lookup(kind: .lease, accessGroup: nil, name: $0), $0) }, uniquingKeysWith: { a, _ in a }
        )
        for row in metadataRows {
            guard let resealed = try resealMetadata(row, leaseNames: leaseNames) else {
                try db.run("DELETE FROM records WHERE record_id = ?", [.blob(row.id)])
                continue
            }
            try write(resealed, in: db)
            result.append(resealed)
        }
        return result
    }

    private func write(_ row: RecordRow, in db: SQLiteConnection) throws {
        try db.run(
            "UPDATE records SET kind = ?2, lookup = ?3, domain = ?4, policy = ?5, version = ?6, sealed = ?7 WHERE record_id = ?1",
            row.values)
    }

    private func directoryGroups(_ rows: [RecordRow]) throws -> [String?] {
        guard let row = rows.first(where: { $0.lookup == GroupDirectory.lookup(old) }) else { return [nil] }
        let bytes = try row.open(key: old.metadataKey, vaultID: vaultID, format: oldFormat)
        guard let groups = try? JSONDecoder().decode([String].self, from: Data(bytes)) else {
            throw VaultError.integrity("the access-group directory is malformed")
        }
        return [nil] + groups.sorted()
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

    private func resealItem(_ row: RecordRow, groups: [String?]) throws -> (RecordRow, String)? {
        let (envelope, domain) = try openItem(row, groups: groups)
        if domain.accessibility.needsPasscode && !keepsPasscodeItems { return nil }
        let lookupGroup = row.kind == .token ? nil : domain.accessGroup
        let resealed = try RecordRow.seal(
            envelope.bytes, id: row.id, kind: row.kind,
            lookup: new.lookup(kind: row.kind, accessGroup: lookupGroup, name: envelope.name),
            domainID: new.id(of: domain, device: device), policyCode: row.policyCode, version: row.version + 1,
            key: new.key(for: domain, device: device), vaultID: vaultID)
        return (resealed, envelope.name)
    }

    private func resealMetadata(_ row: RecordRow, leaseNames: [[UInt8]: String]) throws -> RecordRow? {
        let plaintext = try row.open(key: old.metadataKey, vaultID: vaultID, format: oldFormat)
        let name: String
        switch row.kind {
        case .factor: name = try FactorRecord(decoding: plaintext).factor.rawValue
        case .groupDirectory: name = GroupDirectory.name
        case .defaultToken: name = Vault.defaultTokenName
        case .lease:
            // A lease whose token is gone guards nothing.
            guard let lookup = row.lookup, let token = leaseNames[lookup] else { return nil }
            name = token
        case .slotScope:
            guard let slot = slotID(of: row) else {
                throw VaultError.integrity("a key slot's access-group list is filed under no known slot")
            }
            if droppedSlotIDs.contains(slot) { return nil }
            name = SlotScopes.name(of: slot)
        case .keyValueItem, .token: preconditionFailure("not a metadata row")
        }
        let lookup = old.lookup(kind: row.kind, accessGroup: nil, name: name)
        guard row.lookup == lookup else {
            throw VaultError.integrity("a metadata record is filed under the wrong name")
        }
        return try RecordRow.seal(
            plaintext, id: row.id, kind: row.kind, lookup: new.lookup(kind: row.kind, accessGroup: nil, name: name),
            domainID: RecordRow.metadataDomainID, policyCode: 0, version: row.version + 1, key: new.metadataKey,
            vaultID: vaultID)
    }

    /// The slot a scope row belongs to, found by trying every slot id in the file.
    private func slotID(of row: RecordRow) -> [UInt8]? {
        slotIDs.first { old.lookup(kind: .slotScope, accessGroup: nil, name: SlotScopes.name(of: $0)) == row.lookup }
    }
}
