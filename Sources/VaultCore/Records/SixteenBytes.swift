/// Sixteen bytes, such as a record id or a term hash, held as two big-endian words: no array on
/// the heap, and ordered as the bytes are, which is how both databases order blobs.
package struct SixteenBytes: Hashable, Comparable, Sendable {
    /// The first eight bytes, big-endian.
    package let high: UInt64
    /// The last eight bytes, big-endian.
    package let low: UInt64

    /// The bytes of two big-endian words.
    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The words of `bytes`, or `nil` when there are not exactly sixteen.
    package init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count == 16 else { return nil }
        high = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
        low = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    }

    /// The words of `bytes`, or `nil` when there are not exactly sixteen.
    package init?(_ bytes: [UInt8]) {
        guard let words = bytes.withUnsafeBytes({ SixteenBytes($0) }) else { return nil }
        self = words
    }

    /// The words of a record id read from storage.
    ///
    /// - Throws: ``VaultError/integrity(_:)`` for an id that is not 16 bytes, which both schemas
    ///   refuse.
    init(recordID: UnsafeRawBufferPointer) throws {
        guard let words = SixteenBytes(recordID) else { throw VaultError.integrity("a record id is not 16 bytes") }
        self = words
    }

    /// The words of a record id read from storage.
    ///
    /// - Throws: ``VaultError/integrity(_:)`` for an id that is not 16 bytes.
    init(recordID: [UInt8]) throws {
        self = try recordID.withUnsafeBytes { try SixteenBytes(recordID: $0) }
    }

    /// The sixteen bytes.
    package var bytes: [UInt8] {
        withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { [UInt8]($0) }
    }

    /// The order of the bytes.
    package static func < (lhs: SixteenBytes, rhs: SixteenBytes) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}
