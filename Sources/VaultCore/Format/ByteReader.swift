/// Reads the layouts ``ByteWriter`` writes; any short or malformed input is an integrity error.
struct ByteReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { offset == bytes.count }

    /// How many bytes are left to read.
    var remainingCount: Int { bytes.count - offset }

    mutating func read<Integer: FixedWidthInteger>(_: Integer.Type) throws -> Integer {
        let size = MemoryLayout<Integer>.size
        guard bytes.count - offset >= size else { throw Self.malformed }
        var value = Integer.zero
        for index in 0..<size {
            value |= Integer(bytes[offset + index]) << (8 * index)
        }
        offset += size
        return value
    }

    mutating func read(count: Int) throws -> [UInt8] {
        guard count >= 0, bytes.count - offset >= count else { throw Self.malformed }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func readLengthPrefixed() throws -> [UInt8] {
        try read(count: Int(read(UInt32.self)))
    }

    /// Moves past what ``readLengthPrefixed()`` would read, without copying it.
    mutating func skipLengthPrefixed() throws {
        let count = Int(try read(UInt32.self))
        guard bytes.count - offset >= count else { throw Self.malformed }
        offset += count
    }

    func expectEnd() throws {
        guard isAtEnd else { throw Self.malformed }
    }

    private static let malformed = VaultError.integrity("a decrypted record is malformed")
}
