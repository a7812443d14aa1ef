internal import CSodium
import Locking

/// Hands out small blocks of guarded, locked memory carved from larger `sodium_malloc` slabs.
///
/// One `sodium_malloc` + `sodium_free` costs about as much as 25 seals (two guard pages, `mlock`,
/// a canary), so keys are not given one allocation each. Blocks up to ``blockSize`` bytes come from
/// shared slabs whose pages are guarded and locked as a whole; larger requests get their own
/// `sodium_malloc`. Every block is wiped with `sodium_memzero` before it is reused or freed.
/// Slabs live for the life of the process: their number is bounded by the peak number of live keys.
final class SecureMemoryPool: Sendable {
    /// The process-wide pool.
    static let shared = SecureMemoryPool()

    /// The size of a pooled block: room for a 64-byte BLAKE2b key, the largest key the library holds.
    static let blockSize = 64
    /// Blocks per slab: 64 blocks make one 4 KiB page.
    static let blocksPerSlab = 64

    // Addresses are kept as integers so the free list is Sendable; they are only ever
    // turned back into pointers by this type.
    private let freeBlocks = Locked<[UInt]>([])

    /// Returns writable memory of at least `count` bytes, zeroed.
    func allocate(count: Int) -> UnsafeMutableRawPointer {
        SodiumRuntime.ensureInitialized()
        guard count <= Self.blockSize else {
            return Self.sodiumAllocate(count)
        }
        let address = freeBlocks.withLock { free -> UInt in
            if let address = free.popLast() { return address }
            let slab = Self.sodiumAllocate(Self.blockSize * Self.blocksPerSlab)
            let base = UInt(bitPattern: slab)
            for index in (1..<Self.blocksPerSlab).reversed() {
                free.append(base + UInt(index * Self.blockSize))
            }
            return base
        }
        let pointer = UnsafeMutableRawPointer(bitPattern: address)!
        sodium_memzero(pointer, Self.blockSize)
        return pointer
    }

    /// Wipes the memory and returns it to the pool (or to libsodium for large blocks).
    func release(_ pointer: UnsafeMutableRawPointer, count: Int) {
        guard count <= Self.blockSize else {
            sodium_free(pointer)  // sodium_free wipes before unmapping
            return
        }
        sodium_memzero(pointer, Self.blockSize)
        freeBlocks.withLock { $0.append(UInt(bitPattern: pointer)) }
    }

    private static func sodiumAllocate(_ count: Int) -> UnsafeMutableRawPointer {
        guard let pointer = sodium_malloc(max(count, 1)) else {
            fatalError("sodium_malloc failed: out of guarded memory")
        }
        sodium_memzero(pointer, max(count, 1))
        return pointer
    }
}
