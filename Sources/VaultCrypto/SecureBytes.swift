internal import CSodium

/// Secret bytes in guarded, locked memory, wiped when the last reference goes away.
///
/// The only way to the bytes is ``withUnsafeBytes(_:)``; the description never shows them, the
/// type is not `Codable`, and equality is constant-time (`sodium_memcmp`). Contents are written once,
/// inside the initialiser, and never change afterwards, which is why sharing across threads is safe.
public final class SecureBytes: @unchecked Sendable {
    private let pointer: UnsafeMutableRawPointer

    /// The number of secret bytes.
    public let count: Int

    /// Allocates `count` bytes of secure memory and lets `initializer` write them.
    ///
    /// - Parameters:
    ///   - count: The number of bytes.
    ///   - initializer: Writes the bytes. If it throws, the memory is wiped and released.
    /// - Throws: What `initializer` throws.
    public init(count: Int, initializer: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        precondition(count >= 0, "negative SecureBytes count")
        let memory = SecureMemoryPool.shared.allocate(count: count)
        // Fill before storing any property: once all are set, a throw would also run deinit and
        // release the block a second time.
        do {
            try initializer(UnsafeMutableRawBufferPointer(start: memory, count: count))
        } catch {
            SecureMemoryPool.shared.release(memory, count: count)
            throw error
        }
        self.count = count
        self.pointer = memory
    }

    /// Copies `bytes` into secure memory. The caller stays responsible for wiping its own copy.
    ///
    /// - Parameter bytes: The secret to copy.
    public convenience init(copying bytes: some Collection<UInt8>) {
        self.init(count: bytes.count) { buffer in
            _ = buffer.initializeMemory(as: UInt8.self, from: bytes)
        }
    }

    /// `count` bytes from libsodium's CSPRNG, written straight into secure memory.
    ///
    /// Wraps `randombytes_buf`.
    /// - Parameter count: The number of bytes.
    /// - Returns: The random secret.
    public static func random(count: Int) -> SecureBytes {
        SecureBytes(count: count) { buffer in
            if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
        }
    }

    /// Calls `body` with a read-only view of the secret. The view must not escape the closure.
    ///
    /// - Parameter body: Reads the bytes.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withUnsafeBytes<Result>(
        _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Where the secret bytes live, as a number: for the wipe test, which checks in a separate
    /// process that the same bytes read as zeros once the owner is gone. Package-internal.
    package var addressForTesting: UInt { UInt(bitPattern: pointer) }

    deinit {
        SecureMemoryPool.shared.release(pointer, count: count)
    }
}

extension SecureBytes {
    /// Zeroes ordinary memory that briefly held a secret, in a way the optimiser cannot drop.
    ///
    /// Wraps `sodium_memzero`.
    /// - Parameter buffer: The memory to wipe.
    package static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        if let base = buffer.baseAddress { sodium_memzero(base, buffer.count) }
    }
}

extension SecureBytes: Equatable {
    /// Compares in constant time. Wraps `sodium_memcmp`.
    public static func == (lhs: SecureBytes, rhs: SecureBytes) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in
                guard let l = left.baseAddress, let r = right.baseAddress else { return true }
                return sodium_memcmp(l, r, left.count) == 0
            }
        }
    }
}

extension SecureBytes: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// A redacted description that gives only the length.
    public var description: String { "SecureBytes(\(count) bytes, redacted)" }
    /// The same redacted text as ``description``.
    public var debugDescription: String { description }
    /// What `dump()` and debuggers show: the length only (not even where the bytes live).
    public var customMirror: Mirror { Mirror(self, children: ["count": count], displayStyle: .class) }
}
