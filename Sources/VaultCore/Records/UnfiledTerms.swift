import VaultCrypto

/// The rules both record stores follow for ids that count up and for the term hashes a record keeps
/// in its own row until they are filed in the index, so the two backends cannot drift apart.
///
/// A record id is 8 bytes of counter (big-endian) then 8 random bytes; the index's mark is the
/// largest record id the index files every term of. Records above the mark keep the keyed hashes of
/// their terms in their `terms` column, 16 bytes each, one after another.
package enum UnfiledTerms {
    /// How many records may keep their terms in their own row before they are filed in the index
    /// together: a look-up scans those rows, and the filing writes each page of the index it lands
    /// on once, so the more records wait, the fewer index pages each costs.
    package static let limit: UInt64 = 512

    /// An id after `largest` (the largest id in the table): its counter plus one, then 8 random
    /// bytes. In an empty table the counter starts at random below 2^62; when it cannot grow any
    /// more, a random id.
    package static func recordID(after largest: [UInt8]?) -> [UInt8] {
        let next: UInt64
        if let current = largest.flatMap(counter(of:)) {
            guard current < .max else { return SecureRandom.bytes(count: VaultFormat.idByteCount) }
            next = current + 1
        } else {
            next = .random(in: 0..<(1 << 62))
        }
        let prefix = (0..<8).map { UInt8(truncatingIfNeeded: next >> (56 - 8 * $0)) }
        return prefix + SecureRandom.bytes(count: VaultFormat.idByteCount - 8)
    }

    /// Whether a record keeps its terms in its row: its id sorts after the mark, as both databases
    /// compare blobs (bytewise).
    static func isAbove(_ id: [UInt8], mark: [UInt8]) -> Bool {
        mark.lexicographicallyPrecedes(id)
    }

    /// Whether writing the record `recordID` (the largest id when it is new) makes enough records
    /// wait above `mark` to file them all: ids count up by one, so the distance between the counters
    /// is the number of records added since the last filing. An empty or short mark files at once.
    static func fillsTheLimit(mark: [UInt8], recordID: [UInt8]) -> Bool {
        guard let from = counter(of: mark), let to = counter(of: recordID) else { return true }
        return to &- from >= limit
    }

    /// The `terms` column of a row keeping `hashes`; `nil` (NULL) for none.
    static func column(_ hashes: [[UInt8]]) -> [UInt8]? {
        hashes.isEmpty ? nil : hashes.flatMap { $0 }
    }

    /// The hashes a `terms` column holds; a trailing partial hash is ignored.
    static func hashes(in column: [UInt8]) -> [[UInt8]] {
        stride(from: 0, to: column.count - column.count % IndexTerm.hashByteCount, by: IndexTerm.hashByteCount).map {
            Array(column[$0..<$0 + IndexTerm.hashByteCount])
        }
    }

    /// The counting half of an id: its first 8 bytes, big-endian; `nil` for a shorter id.
    private static func counter(of id: [UInt8]) -> UInt64? {
        guard id.count >= 8 else { return nil }
        return id.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
}
