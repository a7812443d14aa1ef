extension [UInt8] {
    /// Bytes written in place by `body`, like `init(unsafeUninitializedCapacity:initializingWith:)`,
    /// but safe for a count of 0: that initialiser then writes the count into the one buffer every
    /// empty array shares, which races with any other thread reading an empty array
    /// (ThreadSanitizer reports it). With 0, `body` still runs, on an empty buffer, so a check it
    /// makes (an authentication tag, say) still happens.
    ///
    /// - Parameters:
    ///   - count: The most bytes `body` may write.
    ///   - body: Writes the bytes and sets how many it initialised (a prefix of the buffer).
    /// - Rethrows: What `body` throws.
    package init(
        filling count: Int, _ body: (inout UnsafeMutableBufferPointer<UInt8>, inout Int) throws -> Void
    ) rethrows {
        guard count > 0 else {
            var empty = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
            var initialized = 0
            try body(&empty, &initialized)
            self = []
            return
        }
        try self.init(unsafeUninitializedCapacity: count, initializingWith: body)
    }
}
