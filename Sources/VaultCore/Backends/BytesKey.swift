/// Bytes as a dictionary key, hashed in one pass. `[UInt8]`'s own `Hashable` conformance feeds the
/// hasher one byte at a time: a 32-byte look-up tag took about a thousand instructions to hash, and
/// a store looks several up in what the process knows of the rows (``KnownRecordState``).
package struct BytesKey: Hashable, Sendable {
    /// The bytes.
    package let bytes: [UInt8]

    /// The key of `bytes`.
    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    package func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
