import Foundation

/// The names of the access groups in use, sealed with the metadata key, so a full-access unlock can
/// find every group's records (the file itself holds only keyed hashes of group names).
enum GroupDirectory {
    static let name = "access groups"

    /// The directory's groups.
    static func groups(
        in records: any RecordReader, keys: KeyRing, vaultID: [UInt8], format: Int = VaultFormat.sealingVersion
    ) throws -> Set<String> {
        guard let row = try records.row(lookup: lookup(keys)) else { return [] }
        return try decode(row.open(key: keys.metadataKey(forGroup: nil), vaultID: vaultID, format: format))
    }

    /// Adds `group` if it is not listed yet.
    static func add(_ group: String, in transaction: inout RecordTransaction) throws {
        let lookup = lookup(transaction.keys)
        let existing = try transaction.row(lookup: lookup)
        var groups =
            try existing.map {
                try decode($0.open(key: transaction.keys.metadataKey(forGroup: nil), vaultID: transaction.vaultID))
            }
            ?? []
        guard groups.insert(group).inserted else { return }
        try transaction.ensureDigest(of: group)
        let plaintext = Array(try JSONEncoder().encode(groups.sorted()))
        try transaction.upsertMetadata(plaintext, kind: .groupDirectory, lookup: lookup, replacing: existing)
    }

    static func lookup(_ keys: KeyRing) -> [UInt8] {
        keys.lookup(kind: .groupDirectory, accessGroup: nil, name: name)
    }

    private static func decode(_ bytes: [UInt8]) throws -> Set<String> {
        guard let groups = try? JSONDecoder().decode([String].self, from: Data(bytes)) else {
            throw VaultError.integrity("the access-group directory is malformed")
        }
        return Set(groups)
    }
}
