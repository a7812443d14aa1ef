/// Reads and writes the enrolled-factor metadata rows.
enum FactorStore {
    static func lookup(_ factor: AuthenticationFactor, _ keys: KeyRing) -> [UInt8] {
        keys.lookup(kind: .factor, accessGroup: nil, name: factor.rawValue)
    }

    /// Every enrolled factor.
    static func records(in store: any RecordReader, keys: KeyRing, vaultID: [UInt8]) throws -> [AuthenticationFactor:
        FactorRecord]
    {
        let rows = try store.rows(kind: .factor)
        var records: [AuthenticationFactor: FactorRecord] = [:]
        for row in rows {
            let record = try FactorRecord(decoding: row.open(key: keys.factorRecordKey(), vaultID: vaultID))
            guard row.lookup == lookup(record.factor, keys) else {
                throw VaultError.integrity("an enrolled factor is filed under the wrong name")
            }
            records[record.factor] = record
        }
        return records
    }

    static func store(_ record: FactorRecord, in transaction: inout RecordTransaction) throws {
        let lookup = lookup(record.factor, transaction.keys)
        try transaction.upsertMetadata(
            record.bytes, kind: .factor, lookup: lookup, replacing: transaction.row(lookup: lookup))
    }
}
