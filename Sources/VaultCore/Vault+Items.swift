import Foundation
import VaultCrypto

/// Sealing and opening item records (key-value items and tokens) under their policy's keys.
extension Vault {
    /// What to write into an item record.
    struct ItemContent {
        let name: String
        let metadata: [UInt8]
        /// The new value, or `nil` to keep the existing record's value (and its access control).
        let value: [UInt8]?
        /// The terms a token record is indexed under; `nil` for a key-value item.
        var terms: [IndexTerm]? = nil
    }

    /// Seals and writes one item with its policy's domain key, replacing `existing` (whose sealed
    /// index terms are `replacedTerms`).
    ///
    /// - Returns: The row written.
    /// - Throws: ``VaultError/unsupportedFormat(_:)`` for a token record in a format version 2 file,
    ///   whose records this library would write in a layout version 2 readers cannot read (a
    ///   full-access unlock upgrades the file first).
    @discardableResult
    func storeItem(
        _ item: ItemContent, kind: RecordKind, lookup: [UInt8], policy: VaultPolicy, device: DeviceSecret?,
        replacing existing: RecordRow?, replacedTerms: [IndexTerm]? = nil, existingGroups: [String?] = [],
        in transaction: inout RecordTransaction
    ) throws -> RecordRow {
        let keys = transaction.keys
        let domain = Domain(policy)
        guard keys.isInScope(policy.accessGroup) else { throw Self.outOfScope }
        if kind == .token, transaction.format < 3 {
            throw VaultError.unsupportedFormat(Self.notUpgraded)
        }
        if domain.accessibility.needsPasscode {
            guard try transaction.keySlots().contains(where: \.kind.usesPassphrase) else {
                throw VaultError.unsupportedPolicy("whenPasscodeSetThisDeviceOnly needs a vault with a passphrase slot")
            }
        }
        let id = try existing?.id ?? transaction.newRecordID()
        let content: ItemEnvelope.Content
        if let value = item.value, domain.accessControl.isEmpty {
            // Without access control there is no factor to seal to, so no factor record to read.
            content = .value(value)
        } else if let value = item.value {
            let factors = try FactorStore.records(in: transaction.records, keys: keys, vaultID: vaultID)
            let requirement = try AccessRequirement.plan(domain.accessControl, enrolled: Set(factors.keys))
            content =
                try requirement.map {
                    .accessControlled(
                        try AccessControlledSecret.seal(
                            value, requirement: $0, factors: factors, associatedData: innerAssociatedData(id)))
                } ?? .value(value)
        } else {
            guard let existing else { throw VaultError.notFound("the item to update") }
            let previous = try openItem(existing, groups: existingGroups, keys: keys)
            guard previous.domain.accessControl == domain.accessControl else {
                throw VaultError.unsupportedPolicy("changing access control needs the value (and so a proof)")
            }
            content = previous.envelope.content
        }
        let terms = kind == .token ? item.terms ?? [] : nil
        let row = try RecordRow.seal(
            ItemEnvelope(name: item.name, metadata: item.metadata, terms: terms, content: content).bytes, id: id,
            kind: kind,
            lookup: lookup, domainID: keys.id(of: domain, device: device), policyCode: domain.policyCode,
            version: (existing?.version ?? 0) + 1, scope: transaction.register(group: policy.accessGroup),
            key: try keys.key(for: domain, device: device), vaultID: vaultID)
        if let existing {
            try transaction.replace(existing, with: row)
            if let terms {
                try transaction.reindex(recordID: id, from: replacedTerms ?? [], to: terms, group: policy.accessGroup)
            }
        } else if let terms {
            try transaction.insert(row, terms: terms, group: policy.accessGroup)
        } else {
            try transaction.insert(row)
        }
        if let group = policy.accessGroup, keys.scope == nil {
            try GroupDirectory.add(group, in: &transaction)
        }
        return row
    }

    /// Opens an item row with the key of its domain, found among `groups` by the domain id the row
    /// carries. The stored policy, not the caller's, governs reading. A read that needs no index
    /// terms passes `readingTerms: false` (``ItemEnvelope/init(decoding:readingTerms:)``).
    ///
    /// - Throws: ``VaultError/unavailableOnThisDevice`` for a device-bound item without this
    ///   device's secret, ``VaultError/locked`` for a class whose keys are not held,
    ///   ``VaultError/accessDenied(_:)`` outside a scoped unlock, ``VaultError/integrity(_:)``.
    func openItem(
        _ row: RecordRow, groups: [String?], keys: KeyRing, readingTerms: Bool = true
    ) throws -> (envelope: ItemEnvelope, domain: Domain) {
        let accessibility = try Domain(policyCode: row.policyCode, accessGroup: nil).accessibility
        var device: DeviceSecret?
        if accessibility.isDeviceBound {
            guard let present = try deviceSecret(creating: false) else { throw VaultError.unavailableOnThisDevice }
            device = present
        }
        let reachable = groups.filter(keys.isInScope)
        guard !reachable.isEmpty else { throw Self.outOfScope }
        if let domain = try row.domain(among: reachable, keys: keys, device: device) {
            let envelope = try ItemEnvelope(
                decoding: row.open(key: keys.key(for: domain, device: device), vaultID: vaultID),
                readingTerms: readingTerms)
            return (envelope, domain)
        }
        if accessibility.isDeviceBound { throw VaultError.unavailableOnThisDevice }
        if keys.scope != nil && reachable.count < groups.count { throw Self.outOfScope }
        throw VaultError.integrity("a record's domain does not match its policy")
    }

    /// The value bytes of the item `locate` finds and opens in a read transaction, or `nil` when it
    /// finds none. Proofs are asked for after the transaction: a prompt must not hold the vault.
    /// `lookups` names the tags `locate` reads, fetched ahead (``read(prefetching:_:)``).
    func readItemValue(
        authenticationContext: (any AuthenticationContext)?, prompt: String?,
        prefetching lookups: (KeyRing) -> [[UInt8]],
        locate: (any RecordReader, KeyRing) throws -> (RecordRow, ItemEnvelope)?
    ) throws -> [UInt8]? {
        let found = try read(prefetching: lookups) {
            records, keys -> (RecordRow, ItemEnvelope, [AuthenticationFactor: FactorRecord])? in
            guard let (row, envelope) = try locate(records, keys) else { return nil }
            guard case .accessControlled = envelope.content else { return (row, envelope, [:]) }
            return (row, envelope, try FactorStore.records(in: records, keys: keys, vaultID: vaultID))
        }
        guard let (row, envelope, factors) = found else { return nil }
        return try Self.translatingErrors {
            try itemValue(of: envelope, recordID: row.id) { factor in
                guard let record = factors[factor] else { return nil }
                return try factorKeys(factor, record: record, context: authenticationContext, prompt: prompt)
            }
        }
    }

    /// The value bytes of an opened envelope, rebuilding an access-controlled item key from proofs.
    func itemValue(
        of envelope: ItemEnvelope, recordID: [UInt8], keys: (AuthenticationFactor) throws -> FactorRecord.Keys?
    ) throws -> [UInt8] {
        switch envelope.content {
        case .value(let bytes): bytes
        case .accessControlled(let secret):
            try secret.open(associatedData: innerAssociatedData(recordID), keys: keys)
        }
    }

    /// The groups an item of unknown group may be in: the vault's own, and every listed group.
    func candidateGroups(in records: any RecordReader, keys: KeyRing) throws -> [String?] {
        if let scope = keys.scope { return Array(scope) }
        return [nil] + (try GroupDirectory.groups(in: records, keys: keys, vaultID: vaultID)).sorted()
    }

    static let outOfScope = VaultError.accessDenied("this unlock is scoped to other access groups")

    static let notUpgraded =
        "writing tokens needs the vault upgraded to format version 3, which a full-access unlock does first"

    private func innerAssociatedData(_ recordID: [UInt8]) -> [UInt8] {
        Array("TVA1".utf8) + vaultID + recordID
    }
}
