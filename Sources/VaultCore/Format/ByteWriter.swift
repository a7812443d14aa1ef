/// Builds the fixed little-endian byte layouts used for associated data, sealed envelopes and token
/// records.
///
/// It writes into a buffer of its own, which ``bytes`` copies out once: appending to an `Array`
/// checks the array's uniqueness and capacity on every append and copies an integer's bytes through
/// the general `append(contentsOf:)`, about 80 instructions an integer where a store here is a few.
/// A durable store builds a dozen layouts and runs their code with the caches cold after every
/// `fdatasync`, so the appends are kept out of line: one copy of each, shared, costs less than one
/// inlined into every layout. They take concrete types, not generic ones, so that the token
/// record's encoder in another module calls the same code rather than the generic code, which
/// reaches every integer and collection through the runtime's witness tables.
package struct ByteWriter: ~Copyable {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    private var count = 0

    /// A writer with room for `capacity` bytes before it grows.
    package init(reservingCapacity capacity: Int = 64) {
        self.capacity = max(capacity, 16)
        base = .allocate(byteCount: self.capacity, alignment: 1)
    }

    deinit {
        base.deallocate()
    }

    /// The bytes written so far.
    package var bytes: [UInt8] { [UInt8](UnsafeRawBufferPointer(start: base, count: count)) }

    package mutating func append(_ value: UInt8) {
        store(value)
    }

    @inline(never)
    package mutating func append(_ value: UInt16) { store(value.littleEndian) }

    @inline(never)
    package mutating func append(_ value: UInt32) { store(value.littleEndian) }

    @inline(never)
    package mutating func append(_ value: UInt64) { store(value.littleEndian) }

    @inline(never)
    package mutating func append(_ value: Int64) { store(value.littleEndian) }

    @inline(never)
    package mutating func append(raw bytes: [UInt8]) {
        bytes.withUnsafeBytes { append(contiguous: $0) }
    }

    @inline(never)
    package mutating func append(raw text: String.UTF8View) {
        // A string's UTF-8 is read in place where it is stored contiguously, as a native string's
        // is: making a `String` of the view first cost a retain and a release on every field.
        let appended: Void? = text.withContiguousStorageIfAvailable { append(contiguous: UnsafeRawBufferPointer($0)) }
        guard appended == nil else { return }
        var text = String(text)
        text.withUTF8 { append(contiguous: UnsafeRawBufferPointer($0)) }
    }

    /// Appends a 32-bit length, then the bytes: unambiguous for variable-length fields.
    @inline(never)
    package mutating func append(lengthPrefixed bytes: [UInt8]) {
        append(UInt32(bytes.count))
        append(raw: bytes)
    }

    /// ``append(lengthPrefixed:)-([UInt8])`` for a string's UTF-8 bytes.
    @inline(never)
    package mutating func append(lengthPrefixed text: String.UTF8View) {
        append(UInt32(text.count))
        append(raw: text)
    }

    /// ``append(lengthPrefixed:)-([UInt8])`` for bytes in a buffer.
    @inline(never)
    package mutating func append(lengthPrefixed buffer: UnsafeRawBufferPointer) {
        append(UInt32(buffer.count))
        append(contiguous: buffer)
    }

    private mutating func store<Integer: FixedWidthInteger>(_ value: Integer) {
        let size = MemoryLayout<Integer>.size
        reserve(size)
        base.storeBytes(of: value, toByteOffset: count, as: Integer.self)
        count += size
    }

    private mutating func append(contiguous buffer: UnsafeRawBufferPointer) {
        guard let source = buffer.baseAddress, !buffer.isEmpty else { return }
        reserve(buffer.count)
        (base + count).copyMemory(from: source, byteCount: buffer.count)
        count += buffer.count
    }

    /// Makes room for `byteCount` more bytes, at least doubling the buffer when it grows.
    private mutating func reserve(_ byteCount: Int) {
        guard count + byteCount > capacity else { return }
        let grown = max(capacity * 2, count + byteCount)
        let moved = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 1)
        moved.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = moved
        capacity = grown
    }
}
