/// Builds the fixed little-endian byte layouts used for associated data and sealed envelopes.
///
/// Its appends are kept out of line: a store builds half a dozen layouts, and runs their code with
/// the caches cold after every `fdatasync`, so one copy of each append, shared, costs less than one
/// inlined into every layout.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init(reservingCapacity capacity: Int = 64) {
        bytes.reserveCapacity(capacity)
    }

    mutating func append(_ value: UInt8) { bytes.append(value) }

    @inline(never)
    mutating func append<Integer: FixedWidthInteger>(_ value: Integer) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    @inline(never)
    mutating func append(raw: some Sequence<UInt8>) { bytes.append(contentsOf: raw) }

    /// Appends a 32-bit length, then the bytes: unambiguous for variable-length fields.
    @inline(never)
    mutating func append(lengthPrefixed field: some Collection<UInt8>) {
        append(UInt32(field.count))
        bytes.append(contentsOf: field)
    }
}
