/// Bytes in memory allocated once, for the raw libsodium calls: stable pointers, so the floor
/// pays nothing for Swift arrays. Freed when released.
final class RawBuffer {
    /// The bytes.
    let bytes: UnsafeMutableRawBufferPointer

    /// `count` zero bytes.
    init(count: Int) {
        bytes = .allocate(byteCount: max(count, 1), alignment: 64)
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
    }

    /// A copy of `source`.
    convenience init(copying source: some Collection<UInt8>) {
        self.init(count: source.count)
        _ = bytes.initializeMemory(as: UInt8.self, from: source)
    }

    /// The first `count` bytes, read-only.
    func prefix(_ count: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[0..<count])
    }

    /// All the bytes, read-only.
    var readOnly: UnsafeRawBufferPointer { UnsafeRawBufferPointer(bytes) }

    deinit {
        bytes.deallocate()
    }
}
