import Foundation
import VaultCrypto

/// Re-seals the records of a vault from one key ring to another inside the caller's write
/// transaction: every record for a key rotation, or only the metadata rows for the version 1 to 2
/// migration (whose item rows keep their layout).
///
/// Each row is opened with the old keys, its name recovered from the plaintext, and sealed again
/// with the new keys under a new look-up tag and domain id and the next version; the row id stays.
/// The caller recomputes the integrity digest from the rows returned. Callers hand the rows over a
/// page at a time: ``begin(in:)``, then for each page ``resealed(_:)`` and ``write(_:in:pending:)``
/// (or ``migrateItems(_:in:pending:)``), then ``resealMetadata(_:in:)``.
struct RecordReseal: Sendable {
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

    /// What re-sealing the item rows leaves for the metadata rows, gathered a page at a time.
    struct Pending {
        /// The id of every token met, with its group: their refresh leases are carried over.
        var tokenIDs: [(id: String, group: String?)] = []
        /// The metadata rows met, re-sealed last, once every token is known.
        var metadataRows: [RecordRow] = []
        /// Index entries under the new keys not filed yet.
        var entries: [IndexEntry] = []
    }

    /// How many index entries wait before they are filed, in key order, in one batch (about
    /// 26 MiB): a batch writes each index page it touches once, where filing each page of
    /// records' entries alone rewrote pages all over the index again and again, and made
    /// re-keying 100,000 tokens a fifth slower.
    static let entriesFiledTogether = 1 << 18

    /// Empties the index, when the file has one, before the first page: the re-sealed records'
    /// terms are filed again under the new keys.
    func begin(in records: any RecordStore) throws {
        if reindexes { try records.removeAllIndexEntries() }
    }

    /// The version 1 migration's share of one page of the records: its metadata rows are kept in
    /// `pending` for ``resealMetadata(_:in:)``, and its item rows keep their bytes and only get
    /// their group's scope, found by the keyed domain id (a token row is opened for its id, which
    /// its refresh lease is carried over by).
    ///
    /// - Returns: The item rows written.
    /// - Throws: ``VaultError/integrity(_:)`` for a row of an unknown policy, storage errors.
    func migrateItems(_ rows: [RecordRow], in records: any RecordStore, pending: inout Pending) throws -> [RecordRow] {
        pending.metadataRows += rows.filter(\.kind.isMetadata)
        var result: [RecordRow] = []
        result.reserveCapacity(rows.count)
        for row in rows where !row.kind.isMetadata {
            let domain = try row.domain(among: groups, keys: old, device: device)
            if let domain, row.kind == .token, let (envelope, _) = try? openItem(row, groups: groups) {
                pending.tokenIDs.append((envelope.name, domain.accessGroup))
            }
            let scoped = RecordRow(
                id: row.id, kind: row.kind, lookup: row.lookup, domainID: row.domainID, policyCode: row.policyCode,
                version: row.version, sealed: row.sealed, scope: new.scopeID(of: domain?.accessGroup))
            try records.update(scoped, expectedVersion: row.version)
            result.append(scoped)
        }
        return result
    }

    /// A page of rows with its item rows opened and sealed again under the new keys, not written
    /// yet: what a caller prepares on other threads while it writes the page before.
    struct ResealedPage: Sendable {
        fileprivate let metadataRows: [RecordRow]
        fileprivate let items: [RecordRow]
        /// For each of `items`, the row sealed again, or `nil` for a passcode item that is destroyed.
        fileprivate let resealed: [ResealedItem?]
    }

    /// An item row sealed again under the new keys, with what the metadata rows and the index need.
    fileprivate struct ResealedItem: Sendable {
        let row: RecordRow
        /// The item's name (a token's id).
        let name: String
        let group: String?
        /// Its index entries under the new keys (none unless ``reindexes``).
        let entries: [IndexEntry]
    }

    /// Opens each item row of `rows`, seals it again and files it under its new index terms, on
    /// every core (the work is independent per row); nothing is written.
    ///
    /// - Throws: ``VaultError/unavailableOnThisDevice`` for an item bound to another device (its key
    ///   cannot be rebuilt here), ``VaultError/locked`` for a class whose keys are not held,
    ///   ``VaultError/integrity(_:)`` for a row that does not open.
    func resealed(_ rows: [RecordRow]) throws -> ResealedPage {
        let items = rows.filter { !$0.kind.isMetadata }
        let resealed = try items.concurrentMap { row -> ResealedItem? in
            guard let (resealed, envelope, group) = try resealItem(row, groups: groups) else { return nil }
            var entries: [IndexEntry] = []
            if reindexes, let terms = envelope.terms, !terms.isEmpty {
                let key = try new.indexKey(forGroup: group)
                entries = terms.map { IndexEntry(term: $0.hash(key: key), recordID: row.id) }
            }
            return ResealedItem(row: resealed, name: envelope.name, group: group, entries: entries)
        }
        return ResealedPage(metadataRows: rows.filter(\.kind.isMetadata), items: items, resealed: resealed)
    }

    /// Writes a page ``resealed(_:)`` prepared, in order, and keeps its index entries and metadata
    /// rows in `pending` for ``resealMetadata(_:in:)``, filing the entries whenever
    /// ``entriesFiledTogether`` wait.
    ///
    /// - Returns: The item rows written; a passcode item that is destroyed is not among them.
    /// - Throws: Storage errors.
    func write(_ page: ResealedPage, in records: any RecordStore, pending: inout Pending) throws -> [RecordRow] {
        pending.metadataRows += page.metadataRows
        var result: [RecordRow] = []
        result.reserveCapacity(page.items.count)
        for (row, resealed) in zip(page.items, page.resealed) {
            guard let resealed else {
                try records.delete(row)
                continue
            }
            if row.kind == .token { pending.tokenIDs.append((resealed.name, resealed.group)) }
            try records.update(resealed.row, expectedVersion: row.version)
            pending.entries += resealed.entries
            result.append(resealed.row)
        }
        if pending.entries.count >= Self.entriesFiledTogether { try fileEntries(&pending, in: records) }
        return result
    }

    /// Files the index entries waiting in `pending`, in one batch.
    private func fileEntries(_ pending: inout Pending, in records: any RecordStore) throws {
        try records.addIndexEntries(pending.entries)
        pending.entries.removeAll()
    }

    /// Files the index entries `pending` still holds, then re-seals and writes the metadata rows it
    /// gathered, once every item row is done: a refresh lease is carried over only for a token
    /// still stored.
    ///
    /// - Returns: The metadata rows written; dropped leases and scope rows are not among them.
    /// - Throws: ``VaultError/integrity(_:)`` for a row that does not open or belongs to no known
    ///   access group.
    func resealMetadata(_ pending: Pending, in records: any RecordStore) throws -> [RecordRow] {
        var pending = pending
        try fileEntries(&pending, in: records)
        let oldScopes = old.scopes(of: groups)
        let leaseNames = Dictionary(
            pending.tokenIDs.map {
                (old.lookup(kind: .lease, accessGroup: $0.group, name: Vault.refreshLeaseName($0.id)), $0.id)
            },
            uniquingKeysWith: { first, _ in first })
        var result: [RecordRow] = []
        for row in pending.metadataRows {
            let group: String?
            if let scope = row.scope {
                guard let known = oldScopes[scope] else {
                    throw VaultError.integrity("a record belongs to no known access group")
                }
                group = known
            } else {
                group = nil
            }
            guard let resealed = try reseal(metadata: row, group: group, leaseNames: leaseNames) else {
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

    private func reseal(metadata row: RecordRow, group: String?, leaseNames: [[UInt8]: String]) throws -> RecordRow? {
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
