import Foundation
import VaultCrypto

/// The access groups of each scoped key slot, sealed with the metadata key: a key rotation must
/// grant every remaining scoped slot its groups' new keys, and cannot open the slot to find them.
enum SlotScopes {
    static func name(of slotID: [UInt8]) -> String {
        "slot " + slotID.map { String(format: "%02x", $0) }.joined()
    }

    /// The groups of the scoped slot `slotID`, or `nil` when none are recorded.
    static func groups(of slotID: [UInt8], in records: any RecordReader, keys: KeyRing, vaultID: [UInt8]) throws
        -> Set<String>?
    {
        let lookup = keys.lookup(kind: .slotScope, accessGroup: nil, name: name(of: slotID))
        guard let row = try records.row(lookup: lookup) else { return nil }
        guard
            let groups = try? JSONDecoder().decode(
                [String].self, from: Data(row.open(key: keys.metadataKey(forGroup: nil), vaultID: vaultID)))
        else { throw VaultError.integrity("a key slot's access-group list is malformed") }
        return Set(groups)
    }

    static func set(_ groups: Set<String>, of slotID: [UInt8], in transaction: inout RecordTransaction) throws {
        let lookup = transaction.keys.lookup(kind: .slotScope, accessGroup: nil, name: name(of: slotID))
        try transaction.upsertMetadata(
            Array(try JSONEncoder().encode(groups.sorted())), kind: .slotScope, lookup: lookup,
            replacing: transaction.row(lookup: lookup))
    }

    /// A new scope row for `slotID`, sealed with `keys` (for a slot added during a key rotation).
    static func row(_ groups: Set<String>, of slotID: [UInt8], keys: KeyRing, vaultID: [UInt8]) throws -> RecordRow {
        try RecordRow.seal(
            Array(try JSONEncoder().encode(groups.sorted())), id: SecureRandom.bytes(count: VaultFormat.idByteCount),
            kind: .slotScope, lookup: keys.lookup(kind: .slotScope, accessGroup: nil, name: name(of: slotID)),
            domainID: RecordRow.metadataDomainID, policyCode: 0, version: 1, scope: nil,
            key: keys.metadataKey(forGroup: nil), vaultID: vaultID)
    }
}
