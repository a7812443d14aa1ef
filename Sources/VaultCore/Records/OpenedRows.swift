import Locking

/// What one unlock session last opened or sealed of the rows every write opens again (the sealed
/// integrity digests, the default token's name), remembered by their sealed bytes.
///
/// An open is a function of the key, the associated data and the sealed bytes (authenticated
/// encryption), so while a row's sealed bytes and associated data are the ones opened, or the ones
/// this session sealed, under the same session's keys, its plaintext is the one remembered, and a
/// write that finds them unchanged skips opening them again. Anything else is opened (and checked)
/// as usual. It belongs to the unlock session (``VaultSession``) and goes with it, as the token
/// metadata cache does: a lock, a new unlock or a rotation starts an empty one. It holds a digest
/// per access group and one name, so it stays small.
final class OpenedRows: Sendable {
    private struct Entry {
        let sealed: [UInt8]
        let associatedData: [UInt8]
        let plaintext: [UInt8]
    }

    private let entries = Locked<[[UInt8]: Entry]>([:])

    /// The plaintext of `sealed`, the row known by `key`: the one remembered when the same bytes
    /// with the same associated data were opened before, else what `open` returns, remembered.
    ///
    /// - Parameters:
    ///   - sealed: The row's sealed bytes as read now.
    ///   - associatedData: What `open` authenticates them with.
    ///   - key: What the row is (its look-up tag, or a digest's scope behind a marker byte).
    ///   - open: Opens `sealed` with `associatedData`.
    /// - Returns: The plaintext.
    /// - Throws: What `open` throws.
    func plaintext(
        of sealed: [UInt8], authenticating associatedData: [UInt8], key: [UInt8], open: () throws -> [UInt8]
    ) throws -> [UInt8] {
        if let entry = entries.withLock({ $0[key] }), entry.sealed == sealed, entry.associatedData == associatedData {
            return entry.plaintext
        }
        let plaintext = try open()
        remember(sealed, authenticating: associatedData, key: key, plaintext: plaintext)
        return plaintext
    }

    /// Remembers that `sealed`, the row known by `key`, holds `plaintext`: bytes just opened, or
    /// bytes this session has just sealed, so its next write, finding them unchanged, need not open
    /// them. Should the transaction that wrote sealed bytes roll back, the row keeps other bytes,
    /// which are opened as usual.
    ///
    /// - Parameters:
    ///   - sealed: The sealed bytes opened or written.
    ///   - associatedData: What they were sealed with.
    ///   - key: What the row is, as in ``plaintext(of:authenticating:key:open:)``.
    ///   - plaintext: What was sealed.
    func remember(_ sealed: [UInt8], authenticating associatedData: [UInt8], key: [UInt8], plaintext: [UInt8]) {
        entries.withLock { $0[key] = Entry(sealed: sealed, associatedData: associatedData, plaintext: plaintext) }
    }
}
