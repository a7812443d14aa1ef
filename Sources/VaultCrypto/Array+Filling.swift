extension [UInt8] {
    /// Bytes written in place by `body`, like `init(unsafeUninitializedCapacity:initializingWith:)`,
    /// without two of that initialiser's costs:
    /// - It allocates through the standard library's unspecialised code, which looks the array
    ///   storage's type up in the runtime's metadata cache on every call: hundreds of instructions,
    ///   and several dozen lines of code that every durable store runs cold after its `fdatasync`.
    ///   Copying a `repeatElement` collection allocates through specialised code (the type is cached
    ///   at the call site) and zeroes the bytes with one `memset`.
    /// - With a count of 0 it writes the count into the one buffer every empty array shares, which
    ///   races with any other thread reading an empty array (ThreadSanitizer reports it). With 0,
    ///   `body` still runs, on an empty buffer, so a check it makes (an authentication tag, say)
    ///   still happens.
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
        self = Array(repeatElement(0, count: count))
        var initialized = 0
        try withUnsafeMutableBufferPointer { buffer in try body(&buffer, &initialized) }
        precondition((0...count).contains(initialized), "more bytes initialised than the buffer holds")
        if initialized < count { removeLast(count - initialized) }
    }
}
