import VaultCrypto
import VaultStorage

/// One row of the `records` table: clear ids and sizes, and the sealed blob.
struct RecordRow {
    let id: [UInt8]
    let kind: RecordKind
    let lookup: [UInt8]?
    let domainID: [UInt8]
    let policyCode: Int64
    let version: UInt64
    let sealed: [UInt8]
    /// The integrity scope: `nil` for vault-wide rows, else the keyed id of the row's access group
    /// (``KeyRing/scopeID(of:)``), whose own digest covers it.
    let scope: [UInt8]?

    /// The associated data the blob was sealed with: format, vault, record, kind, version, domain
    /// and policy. Changing any of them (or copying the blob elsewhere) makes it fail to open.
    ///
    /// From format version 2, metadata rows also bind their look-up tag, so a metadata row moved under
    /// another name (the default token id swapped with a lease, say) fails to open at once. Item rows
    /// keep the version 1 layout: their name is sealed inside and checked against the tag on every read.
    func associatedData(vaultID: [UInt8], format: Int = VaultFormat.currentVersion) -> [UInt8] {
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
    func open(key: SymmetricKey, vaultID: [UInt8], format: Int = VaultFormat.currentVersion) throws -> [UInt8] {
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
        writer.append(raw: Array("TVH1".utf8))
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

    // MARK: SQL

    static let columns = "record_id, kind, lookup, domain, policy, version, sealed, scope"
    static let insertStatement = "INSERT INTO records (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    /// Rewrites the row with the same id (parameter 1) in place.
    static let updateStatement =
        "UPDATE records SET kind = ?2, lookup = ?3, domain = ?4, policy = ?5, version = ?6, sealed = ?7, scope = ?8 "
        + "WHERE record_id = ?1"

    /// Which of `groups` the row's domain is in: the domain whose keyed id the row carries, or
    /// `nil` when none matches (another group, another device, or a tampered row).
    func domain(among groups: [String?], keys: KeyRing, device: DeviceSecret?) throws -> Domain? {
        for group in groups {
            let domain = try Domain(policyCode: policyCode, accessGroup: group)
            if safeCompare(domainID, keys.id(of: domain, device: device)) { return domain }
        }
        return nil
    }

    /// The row filed under a look-up tag, if any.
    static func find(lookup: [UInt8], in db: SQLiteConnection) throws -> RecordRow? {
        try db.queryFirst("SELECT \(columns) FROM records WHERE lookup = ?", [.blob(lookup)], row: RecordRow.init)
    }

    init(
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

    /// Reads a row selected with ``columns``.
    init(_ row: SQLiteRow) throws {
        guard let kind = RecordKind(rawValue: UInt8(truncatingIfNeeded: row.integer(1))) else {
            throw VaultError.integrity("a record has an unknown kind")
        }
        self.init(
            id: row.blob(0), kind: kind, lookup: row.isNull(2) ? nil : row.blob(2), domainID: row.blob(3),
            policyCode: row.integer(4), version: UInt64(bitPattern: row.integer(5)), sealed: row.blob(6),
            scope: row.isNull(7) ? nil : row.blob(7))
    }

    var values: [SQLiteValue] {
        [
            .blob(id), .integer(Int64(kind.rawValue)), lookup.map { .blob($0) } ?? .null, .blob(domainID),
            .integer(policyCode), .integer(Int64(bitPattern: version)), .blob(sealed), scope.map { .blob($0) } ?? .null,
        ]
    }
}
