/// Builds the fixed little-endian byte layouts used for associated data and sealed envelopes.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init(reservingCapacity capacity: Int = 64) {
        bytes.reserveCapacity(capacity)
    }

    mutating func append(_ value: UInt8) { bytes.append(value) }

    mutating func append<Integer: FixedWidthInteger>(_ value: Integer) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func append(raw: some Sequence<UInt8>) { bytes.append(contentsOf: raw) }

    /// Appends a 32-bit length, then the bytes: unambiguous for variable-length fields.
    mutating func append(lengthPrefixed field: some Collection<UInt8>) {
        append(UInt32(field.count))
        bytes.append(contentsOf: field)
    }
}
