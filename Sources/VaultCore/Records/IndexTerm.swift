import VaultCrypto

/// One equality a token record can be found by without opening it: a field the caller names (a
/// tag, an ID-token claim) and its value.
///
/// A record's terms are sealed inside it; the index table holds only each term's keyed hash under
/// the index key of the record's access group (``KeyRing/indexKey(forGroup:)``). The file so shows
/// which records of one group share a term, never a term, and nothing across groups.
package struct IndexTerm: Hashable, Sendable {
    /// What the value is of, in the caller's own naming (`tag:team`, `claim:sub`).
    package let field: String
    /// The value.
    package let value: String

    /// A term.
    ///
    /// - Parameters:
    ///   - field: What the value is of.
    ///   - value: The value.
    package init(field: String, value: String) {
        self.field = field
        self.value = value
    }

    /// The length of a term's keyed hash: 128 bits, so unrelated terms never share one in practice
    /// (and a query still checks each match's sealed terms).
    static let hashByteCount = 16

    /// The keyed hash the index table files this term under.
    func hash(key: SymmetricKey) -> [UInt8] {
        var writer = ByteWriter(reservingCapacity: field.utf8.count + value.utf8.count + 12)
        writer.append(raw: Self.hashPrefix)
        writer.append(lengthPrefixed: field.utf8)
        writer.append(lengthPrefixed: value.utf8)
        return BLAKE2b.hash(writer.bytes, key: key, outputByteCount: Self.hashByteCount)
    }

    /// What every hashed term starts with.
    private static let hashPrefix = Array("TVX1".utf8)

    /// Appends the term to a sealed envelope.
    func write(to writer: inout ByteWriter) {
        writer.append(lengthPrefixed: field.utf8)
        writer.append(lengthPrefixed: value.utf8)
    }

    /// Reads a term written by ``write(to:)``. Both strings must be valid UTF-8: a term that read
    /// back changed would hash to another entry than the one it was filed under.
    init(reading reader: inout ByteReader) throws {
        guard let field = String(validating: try reader.readLengthPrefixed(), as: UTF8.self),
            let value = String(validating: try reader.readLengthPrefixed(), as: UTF8.self)
        else { throw VaultError.integrity("an index term is not UTF-8") }
        self.field = field
        self.value = value
    }

    /// Moves `reader` past a term written by ``write(to:)``, checking only that its two strings'
    /// lengths fit: for a read that needs no terms.
    static func skip(in reader: inout ByteReader) throws {
        try reader.skipLengthPrefixed()
        try reader.skipLengthPrefixed()
    }
}
