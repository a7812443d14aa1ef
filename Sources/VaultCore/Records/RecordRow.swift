import VaultCrypto

/// One record as a ``RecordStore`` keeps it: clear ids and sizes, and the sealed blob.
package struct RecordRow: Equatable, Sendable {
    /// The random record id, kept across updates.
    package let id: [UInt8]
    /// What the record holds.
    package let kind: RecordKind
    /// The keyed look-up tag of the record's name, unique in the store (`nil` for none).
    package let lookup: [UInt8]?
    /// The keyed id of the domain whose key sealed the record.
    package let domainID: [UInt8]
    /// The record's policy bits.
    package let policyCode: Int64
    /// Bumped by every write; what a compare-and-swap write compares.
    package let version: UInt64
    /// The sealed blob.
    package let sealed: [UInt8]
    /// The integrity scope: `nil` for vault-wide rows, else the keyed id of the row's access group
    /// (``KeyRing/scopeID(of:)``), whose own digest covers it.
    package let scope: [UInt8]?

    /// The associated data the blob was sealed with: format, vault, record, kind, version, domain
    /// and policy. Changing any of them (or copying the blob elsewhere) makes it fail to open.
    ///
    /// From format version 2, metadata rows also bind their look-up tag, so a metadata row moved under
    /// another name (the default token id swapped with a lease, say) fails to open at once. Item rows
    /// keep the version 1 layout: their name is sealed inside and checked against the tag on every read.
    func associatedData(vaultID: [UInt8], format: Int = VaultFormat.sealingVersion) -> [UInt8] {
        let bindsLookup = kind.isMetadata && format >= 2
        var writer = ByteWriter(reservingCapacity: 136)
        writer.append(raw: VaultFormat.Tag.record)
        writer.append(UInt16(bindsLookup ? 2 : 1))
        writer.append(raw: vaultID)
        writer.append(raw: id)
        writer.append(kind.rawValue)
        writer.append(version)
        writer.append(lengthPrefixed: domainID)
        writer.append(policyCode)
        if bindsLookup {
            writer.append(UInt8(lookup == nil ? 0 : 1))
            writer.append(lengthPrefixed: lookup ?? [])
        }
        return writer.bytes
    }

    /// The domain id and policy code of metadata rows, which are sealed with the metadata key.
    static let metadataDomainID = [UInt8](repeating: 0, count: 16)

    /// Seals `plaintext` into a new row under `key`.
    static func seal(
        _ plaintext: [UInt8], id: [UInt8], kind: RecordKind, lookup: [UInt8]?, domainID: [UInt8], policyCode: Int64,
        version: UInt64, scope: [UInt8]?, key: SymmetricKey, vaultID: [UInt8]
    ) throws -> RecordRow {
        let unsealed = RecordRow(
            id: id, kind: kind, lookup: lookup, domainID: domainID, policyCode: policyCode, version: version,
            sealed: [],
            scope: scope)
        let box = try XChaCha20Poly1305.seal(
            plaintext, using: key, authenticating: unsealed.associatedData(vaultID: vaultID))
        return RecordRow(
            id: id, kind: kind, lookup: lookup, domainID: domainID, policyCode: policyCode, version: version,
            sealed: box.combined, scope: scope)
    }

    /// Opens the blob with `key`.
    ///
    /// - Throws: ``VaultError/integrity(_:)`` when the row was tampered with, moved or swapped.
    func open(key: SymmetricKey, vaultID: [UInt8], format: Int = VaultFormat.sealingVersion) throws -> [UInt8] {
        do {
            let box = try XChaCha20Poly1305.SealedBox(combined: sealed)
            return try XChaCha20Poly1305.open(
                box, using: key, authenticating: associatedData(vaultID: vaultID, format: format))
        } catch is CryptoError {
            throw VaultError.integrity("a record failed authentication (tampered, truncated or moved)")
        }
    }

    /// This row's term in its scope's integrity digest: a hash of everything in the row, keyed with
    /// the scope's integrity key.
    func integrityHash(key: SymmetricKey) -> [UInt8] {
        var writer = ByteWriter(reservingCapacity: 160)
        writer.append(raw: "TVH1".utf8)
        writer.append(raw: id)
        writer.append(kind.rawValue)
        writer.append(UInt8(lookup == nil ? 0 : 1))
        writer.append(lengthPrefixed: lookup ?? [])
        writer.append(lengthPrefixed: domainID)
        writer.append(policyCode)
        writer.append(version)
        writer.append(raw: BLAKE2b.hash(sealed))
        // Vault-wide rows hash as format version 1 did, so a version 1 digest can be checked.
        if let scope { writer.append(raw: scope) }
        return BLAKE2b.hash(writer.bytes, key: key)
    }

    /// Which of `groups` the row's domain is in: the domain whose keyed id the row carries, or
    /// `nil` when none matches (another group, another device, or a tampered row).
    func domain(among groups: [String?], keys: KeyRing, device: DeviceSecret?) throws -> Domain? {
        for group in groups {
            let domain = try Domain(policyCode: policyCode, accessGroup: group)
            if safeCompare(domainID, keys.id(of: domain, device: device)) { return domain }
        }
        return nil
    }

    /// A row with these column values.
    package init(
        id: [UInt8], kind: RecordKind, lookup: [UInt8]?, domainID: [UInt8], policyCode: Int64,
        version: UInt64, sealed: [UInt8], scope: [UInt8]?
    ) {
        self.scope = scope
        self.id = id
        self.kind = kind
        self.lookup = lookup
        self.domainID = domainID
        self.policyCode = policyCode
        self.version = version
        self.sealed = sealed
    }
}
