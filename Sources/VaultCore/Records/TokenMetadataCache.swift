import Locking
import VaultStorage

/// The token records one unlock session has opened, so that listing them (`find(where:)`,
/// `allIDs`) opens only the rows that are new or changed since the last listing, and the layer
/// above decodes each record's metadata once.
///
/// It belongs to the unlock session (``VaultSession``) and goes with it: ``Vault/lock()``, a new
/// unlock, a revoked unlock, the end of the session and any other change of the session's keys
/// start a fresh, empty cache. So it only ever holds what the current keys can read: a scoped
/// unlock's cache holds the tokens of its groups, and after the session's classes are wiped the
/// records of those classes are opened again, which fails with ``VaultError/locked``.
///
/// Each listing first compares a ``Stamp`` of the read snapshot with the one the cache was filled
/// at. Equal stamps mean no connection committed anything since, so nothing is read. Otherwise the
/// ids and versions of the token rows are listed from clear columns in the same snapshot, and only
/// rows that are new or at another version are opened; rows gone are dropped.
///
/// The metadata is kept in ordinary memory, as every listing already returned it: unlike keys, it
/// is not wiped, only released, when the session ends.
final class TokenMetadataCache: Sendable {
    /// What the cache was filled at; any difference means it may be stale.
    struct Stamp: Equatable {
        /// Commits by any connection move it.
        let changes: ChangeStamp
        /// The key epoch of the keys that opened the rows.
        let epoch: UInt64
        /// Whether this process had its device secret: rows bound to this device were skipped
        /// without it, and are opened again once it is there.
        let hasDeviceSecret: Bool
    }

    /// Opens a token row into its metadata, or gives `nil` for a row this unlock does not list.
    typealias RowOpener = @Sendable (RecordRow) throws -> TokenRecordMetadata?

    /// One token row as the cache last saw it.
    ///
    /// Every listing after a change copies each entry once, and each copy retains every object it
    /// refers to: at a hundred thousand records, scattered objects the processor's caches no longer
    /// hold. So the opened metadata and the decoded value sit behind one reference each, and the
    /// record id is held as words.
    private struct Entry {
        let recordID: SixteenBytes
        let version: UInt64
        /// The opened metadata; `nil` for a row this unlock does not list (another access group's
        /// or bound to another device), kept so that it is not opened again while unchanged.
        let opened: Boxed<TokenRecordMetadata>?
        /// What a decoder made of the opened metadata.
        var decoded: DecodedValue?
    }

    /// One value behind one reference.
    private final class Boxed<Value: Sendable>: Sendable {
        let value: Value

        init(_ value: Value) {
            self.value = value
        }
    }

    /// One record's value as decoded by the decoder type `decoder`.
    private struct DecodedValue {
        let decoder: ObjectIdentifier
        /// A ``Boxed`` of the decoder's `Decoded` type: a decoder type has one `Decoded` type, so
        /// equal `decoder`s mean the same box type.
        let box: AnyObject & Sendable
    }

    /// Every listed record's value, in listing order, as decoded by `Decoder`.
    private final class DecodedListing<Decoder: TokenMetadataDecoder>: Sendable {
        let values: [Decoder.Decoded]

        init(_ values: [Decoder.Decoded]) {
            self.values = values
        }
    }

    private struct State {
        var stamp: Stamp?
        /// Moves whenever ``entries`` changes, so a decoding that started before is not kept.
        var revision: UInt64 = 0
        /// Every token row, in record id order.
        var entries: [Entry] = []
        /// The metadata of the listed entries, in order, once asked for, while ``entries`` has not
        /// changed.
        var listed: [TokenRecordMetadata]?
        /// The last decoded listing, while ``entries`` has not changed.
        var decodedListing: (any Sendable)?
        /// The ids of ``listed``, in order, once asked for, while ``entries`` has not changed.
        var listedIDs: [String]?

        /// Drops what was made from ``entries`` before they changed.
        mutating func entriesChanged() {
            revision &+= 1
            listed = nil
            decodedListing = nil
            listedIDs = nil
        }
    }

    private let state = Locked(State())

    /// Brings the cache up to date with one read snapshot.
    ///
    /// Call it inside the read transaction `records` and `stamp` come from; the caller's
    /// transaction serialises refreshes. When it throws, the cache stays as it was.
    /// - Parameters:
    ///   - stamp: The snapshot's stamp.
    ///   - records: The snapshot's records.
    ///   - opener: Makes the function that opens a token row into its metadata, or gives `nil` for
    ///     a row this unlock does not list, and throws for a row that makes the listing fail (a
    ///     locked class, a damaged row). Called at most once, on this thread, once a row is to be
    ///     opened; the function it makes may run on several threads at once.
    /// - Throws: What `opener`, the function it makes and `records` throw.
    func refresh(
        stamp: Stamp, records: any RecordReader, opener: () throws -> RowOpener
    ) throws {
        var cached: [Entry] = []
        let (previous, revision) = state.withLock { state in
            cached = state.entries
            return (state.stamp, state.revision)
        }
        if previous == stamp { return }
        var made: RowOpener?
        func rowOpener() throws -> RowOpener {
            if let made { return made }
            let new = try opener()
            made = new
            return new
        }

        guard let previous, previous.epoch == stamp.epoch, !cached.isEmpty else {
            // Every row is opened, each on its own, so a page of rows at a time is spread over the
            // cores. A page's sealed bytes stay in the processor's caches until they are opened,
            // and only one page of them is held at a time.
            let open = try rowOpener()
            var entries: [Entry] = []
            try records.forEachPage(of: .token, limit: Vault.rowsPerPage) { page in
                entries += try page.concurrentMap { row in
                    Entry(
                        recordID: try SixteenBytes(recordID: row.id), version: row.version,
                        opened: try open(row).map(Boxed.init), decoded: nil)
                }
            }
            state.withLock { state in
                state.stamp = stamp
                state.entries = entries
                state.entriesChanged()
            }
            return
        }
        let edits = try Self.edits(
            turning: cached, into: records.versions(kind: .token),
            reopenSkipped: previous.hasDeviceSecret != stamp.hasDeviceSecret, records: records,
            open: { try rowOpener()($0) })
        state.withLock { state in
            state.stamp = stamp
            guard !edits.isEmpty else { return }
            let moves = edits.count { if case .replace = $0 { false } else { true } }
            if state.revision == revision, moves <= Self.movesInPlace {
                // Then `cached` and the cache's array are one: dropping this copy leaves the cache's
                // array the only one, so the edits apply in place and the entries that stay are
                // neither copied nor released.
                cached = []
                Self.apply(edits, to: &state.entries)
            } else {
                state.entries = Self.applied(edits, to: cached)
            }
            state.entriesChanged()
        }
    }

    /// The most insertions and removals applied in place: each moves the entries after it, so more
    /// of them make a new array in one pass instead.
    private static let movesInPlace = 16

    /// One change that brings the cached entries in line with a listing.
    private enum Edit {
        /// The entry at `index` goes.
        case remove(Int)
        /// The entry at `index` is replaced by `entry` (the same record at another version).
        case replace(Int, Entry)
        /// `entry` goes in before the entry at `index` (or at the end, for the entries' count).
        case insert(Int, Entry)
    }

    /// The edits that turn `cached` into `listing`: entries at the same version stay, the rest of
    /// the listing is opened, and entries not in the listing go. Both are in record id order, and
    /// so are the edits, an insertion coming before an edit of the entry it goes in front of.
    private static func edits(
        turning cached: [Entry], into listing: [(id: SixteenBytes, version: UInt64)], reopenSkipped: Bool,
        records: any RecordReader, open: (RecordRow) throws -> TokenRecordMetadata?
    ) throws -> [Edit] {
        var edits: [Edit] = []
        var next = 0
        for (id, version) in listing {
            while next < cached.count, cached[next].recordID < id {
                edits.append(.remove(next))
                next += 1
            }
            let isCached = next < cached.count && cached[next].recordID == id
            if isCached, cached[next].version == version, cached[next].opened != nil || !reopenSkipped {
                next += 1
                continue
            }
            // Listed in this snapshot, so it is there; a row gone all the same is left out.
            let entry = try records.row(id: id.bytes).map { row in
                Entry(recordID: id, version: row.version, opened: try open(row).map(Boxed.init), decoded: nil)
            }
            switch (isCached, entry) {
            case (true, let entry?): edits.append(.replace(next, entry))
            case (true, nil): edits.append(.remove(next))
            case (false, let entry?): edits.append(.insert(next, entry))
            case (false, nil): break
            }
            if isCached { next += 1 }
        }
        edits += (next..<cached.count).map(Edit.remove)
        return edits
    }

    /// Applies `edits`, made by ``edits(turning:into:reopenSkipped:records:open:)`` for `entries`.
    ///
    /// Last first, so that each edit's index still points where it did in the entries it was made
    /// for; insertions at one index then go in last first too, and end up in listing order.
    private static func apply(_ edits: [Edit], to entries: inout [Entry]) {
        for edit in edits.reversed() {
            switch edit {
            case .remove(let index): entries.remove(at: index)
            case .replace(let index, let entry): entries[index] = entry
            case .insert(let index, let entry): entries.insert(entry, at: index)
            }
        }
    }

    /// `cached` with `edits`, made by ``edits(turning:into:reopenSkipped:records:open:)`` for it,
    /// applied in one pass into a new array.
    private static func applied(_ edits: [Edit], to cached: [Entry]) -> [Entry] {
        var entries: [Entry] = []
        entries.reserveCapacity(cached.count + edits.count)
        var next = 0
        for edit in edits {
            switch edit {
            case .remove(let index):
                entries += cached[next..<index]
                next = index + 1
            case .replace(let index, let entry):
                entries += cached[next..<index]
                entries.append(entry)
                next = index + 1
            case .insert(let index, let entry):
                entries += cached[next..<index]
                entries.append(entry)
                next = index
            }
        }
        entries += cached[next...]
        return entries
    }

    /// The listed records' metadata as `Decoder` decodes it, in the order of the last listing.
    ///
    /// Each record is decoded once while it stays at the same version; the whole result is kept
    /// until the next change. Decoding runs without holding the cache or the database.
    /// - Parameter decoder: The decoder.
    /// - Returns: The decoded values.
    /// - Throws: What `decoder` throws; nothing is kept then.
    func decoded<Decoder: TokenMetadataDecoder>(by decoder: Decoder.Type) throws -> [Decoder.Decoded] {
        let key = ObjectIdentifier(decoder)
        var entries: [Entry] = []
        var kept: (any Sendable)? = nil
        let revision = state.withLock { state in
            entries = state.entries
            kept = state.decodedListing
            return state.revision
        }
        if let kept = kept as? DecodedListing<Decoder> { return kept.values }

        // The entries without this decoder's value (all of them on the unlock's first listing, the
        // changed ones after) are decoded each on its own, so spread over the cores. A new value
        // goes straight into the box the cache keeps, so it is not copied on the way.
        var stale: [(index: Int, opened: Boxed<TokenRecordMetadata>)] = []
        for index in entries.indices {
            if let opened = entries[index].opened, entries[index].decoded?.decoder != key {
                stale.append((index, opened))
            }
        }
        let fresh = try stale.concurrentMap { Boxed(try Decoder.decode($0.opened.value)) }
        var values: [Decoder.Decoded] = []
        values.reserveCapacity(entries.count)
        var nextFresh = 0
        for index in entries.indices where entries[index].opened != nil {
            if nextFresh < stale.count, stale[nextFresh].index == index {
                values.append(fresh[nextFresh].value)
                nextFresh += 1
            } else if let decoded = entries[index].decoded {
                values.append(unsafeDowncast(decoded.box, to: Boxed<Decoder.Decoded>.self).value)
            }
        }
        entries = []  // the cache's array is then the only copy, and is updated in place
        let listing = DecodedListing<Decoder>(values)
        state.withLock { state in
            guard state.revision == revision else { return }
            for (position, entry) in stale.enumerated() {
                state.entries[entry.index].decoded = DecodedValue(decoder: key, box: fresh[position])
            }
            state.decodedListing = listing
        }
        return values
    }

    /// The metadata of the records the cache lists now, in listing order: made once, then kept
    /// until the listing changes.
    var listed: [TokenRecordMetadata] {
        state.withLock { state in
            if let listed = state.listed { return listed }
            let listed = state.entries.compactMap { $0.opened?.value }
            state.listed = listed
            return listed
        }
    }

    /// The ids of the records the cache lists now, in listing order: made once, then kept until
    /// the listing changes, so listing ids copies none of the records' metadata.
    var listedIDs: [String] {
        state.withLock { state in
            if let ids = state.listedIDs { return ids }
            let ids = state.entries.compactMap { $0.opened?.value.id }
            state.listedIDs = ids
            return ids
        }
    }
}
