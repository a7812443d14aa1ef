/// Reads fixed-width fields off the front of a fuzz input, with zeros once it runs out, so that
/// every input, however short, maps to some value of each field.
struct FuzzInput {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: [UInt8]) {
        self.bytes = bytes[...]
    }

    /// The bytes not yet read.
    var rest: [UInt8] { Array(bytes) }

    /// Reads a little-endian integer.
    mutating func read<Integer: FixedWidthInteger>(_: Integer.Type) -> Integer {
        var value = Integer.zero
        for index in 0..<MemoryLayout<Integer>.size {
            guard let byte = bytes.popFirst() else { break }
            value |= Integer(truncatingIfNeeded: byte) << (8 * index)
        }
        return value
    }

    /// Reads up to `count` bytes.
    mutating func read(count: Int) -> [UInt8] {
        defer { bytes = bytes.dropFirst(count) }
        return Array(bytes.prefix(count))
    }
}
