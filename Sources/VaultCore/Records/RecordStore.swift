/// Where a vault's records, their index and their sealed integrity digests are read and written:
/// the one owner of the `records`, `record_index` (with its state) and `group_integrity` tables,
/// and of wherever the backend keeps the vault-wide digest (a file: a row of `records` that no
/// query of records returns; a server: its `integrity` table).
///
/// A store deals in rows and opaque bytes only. It never seals, opens or hashes anything, and never
/// sees a key: sealing is ``RecordRow``'s job, and keeping the digests in step with the rows is
/// ``RecordTransaction``'s. So another backend (a server database for a fleet) implements this
/// protocol and nothing else about records changes.
///
/// A store is bound to one transaction of its backend and is not `Sendable`: the vault hands one out
/// only inside a write transaction, which commits on return and rolls back on throw. Read
/// transactions get the ``RecordReader`` half only.
package protocol RecordStore: RecordReader {
    // MARK: Records

    /// A fresh id for a new row, which no row has: a store may hand out ids in its table's order,
    /// so new rows are appended rather than spread over the table.
    ///
    /// - Returns: A ``VaultFormat/idByteCount``-byte id.
    /// - Throws: Storage errors.
    func nextRecordID() throws -> [UInt8]

    /// Adds a new row.
    ///
    /// - Parameter row: The row; its id and look-up tag must not be in use.
    /// - Throws: Storage errors, also when the id or look-up tag is already in use.
    func insert(_ row: RecordRow) throws

    /// Adds a new row filed under the keyed hashes of its terms: what ``insert(_:)`` and then
    /// ``fileTerms(_:removing:of:)`` do, which a store may do in one write of the row.
    ///
    /// - Parameters:
    ///   - row: The row; its id and look-up tag must not be in use.
    ///   - terms: The hashes of every term the record has.
    /// - Throws: Storage errors, also when the id or look-up tag is already in use.
    func insert(_ row: RecordRow, terms: [[UInt8]]) throws

    /// Rewrites the row with `row`'s id, if it is still at `expectedVersion` (compare-and-swap).
    ///
    /// - Parameters:
    ///   - row: The new contents, with the id of the row to rewrite.
    ///   - expectedVersion: The version the caller read.
    /// - Throws: ``VaultError/conflict(_:)`` when the row is at another version or gone (nothing is
    ///   written); storage errors.
    func update(_ row: RecordRow, expectedVersion: UInt64) throws

    /// Deletes the row `row` names, if it is still at `row`'s version (compare-and-swap).
    ///
    /// - Parameter row: The row as it was read.
    /// - Throws: ``VaultError/conflict(_:)`` when the row is at another version or gone; storage
    ///   errors.
    func delete(_ row: RecordRow) throws

    // MARK: Index

    /// Files records under keyed term hashes; an entry already there stays as it is.
    ///
    /// - Parameter entries: Each a term's keyed hash and a record id; many at once when a whole
    ///   vault is filed again, which a store may do in its index's order.
    /// - Throws: Storage errors.
    func addIndexEntries(_ entries: [IndexEntry]) throws

    /// Files one record under the keyed hashes of its terms, after a write of its row changed them.
    ///
    /// A store may keep them with the record's row and file them in the index's order later, with
    /// other records', so one write does not touch a random part of the index per term. Look-ups and
    /// ``RecordReader/forEachIndexEntry(_:)`` see them at once all the same. Call it after the row is
    /// written.
    ///
    /// - Parameters:
    ///   - terms: The hashes of every term the record has now.
    ///   - removed: The hashes of the terms it had before and no longer has.
    ///   - recordID: The record's id.
    /// - Throws: Storage errors.
    func fileTerms(_ terms: [[UInt8]], removing removed: [[UInt8]], of recordID: [UInt8]) throws

    /// Empties the index, before a key rotation files every record again under its new keys.
    ///
    /// - Throws: Storage errors.
    func removeAllIndexEntries() throws

    // MARK: Sealed digests

    /// Stores the sealed digest of one scope, replacing the one it had.
    ///
    /// - Parameters:
    ///   - sealed: The sealed bytes.
    ///   - scope: A group's scope id, or `nil` for the vault-wide digest.
    /// - Throws: Storage errors.
    func setSealedDigest(_ sealed: [UInt8], scope: [UInt8]?) throws

    /// Deletes every group digest (the vault-wide one stays), before a rebuild stores them again.
    ///
    /// - Throws: Storage errors.
    func removeGroupDigests() throws

    // MARK: What this process knows

    /// Whether the default token row is known to name a stored token: an earlier write of this
    /// process found it so (``noteDefaultNamesStoredToken()``), and no write since, by anyone, could
    /// have made it untrue. `false` when the store does not know.
    var knowsDefaultNamesStoredToken: Bool { get }

    /// Notes that the default token row names a stored token, as this transaction has just read, so
    /// that the next stores of this process need not read it again while that holds.
    func noteDefaultNamesStoredToken()
}

/// The read half of a ``RecordStore``: what a read transaction may do with the records and the
/// sealed digests.
package protocol RecordReader {
    // MARK: Records

    /// The row filed under a look-up tag.
    ///
    /// - Parameter lookup: The keyed look-up tag.
    /// - Returns: The row, or `nil` when no row carries the tag.
    /// - Throws: ``VaultError/integrity(_:)`` for a row of unknown kind; storage errors.
    func row(lookup: [UInt8]) throws -> RecordRow?

    /// Whether a row is filed under a look-up tag, without reading the row itself.
    ///
    /// - Parameter lookup: The keyed look-up tag.
    /// - Returns: `true` when a row carries the tag.
    /// - Throws: Storage errors.
    func containsRow(lookup: [UInt8]) throws -> Bool

    /// Every row, in record id order.
    ///
    /// - Returns: The rows.
    /// - Throws: ``VaultError/integrity(_:)`` for a row of unknown kind; storage errors.
    func rows() throws -> [RecordRow]

    /// The next rows after a record id, in record id order: a page of ``rows()``, so that a caller
    /// going through every row holds one page at a time.
    ///
    /// - Parameters:
    ///   - recordID: The record id the page starts after, or `nil` for the first page.
    ///   - limit: The most rows to return; fewer means there are no more.
    /// - Returns: The rows.
    /// - Throws: ``VaultError/integrity(_:)`` for a row of unknown kind; storage errors.
    func rows(after recordID: [UInt8]?, limit: Int) throws -> [RecordRow]

    /// Every row of one kind, in record id order.
    ///
    /// - Parameter kind: The kind of rows to return.
    /// - Returns: The rows.
    /// - Throws: ``VaultError/integrity(_:)`` for a row of unknown kind; storage errors.
    func rows(kind: RecordKind) throws -> [RecordRow]

    /// The next rows of one kind after a record id, in record id order: a page of
    /// ``rows(kind:)``, so that a caller going through every row holds one page at a time.
    ///
    /// - Parameters:
    ///   - kind: The kind of rows to return.
    ///   - recordID: The record id the page starts after, or `nil` for the first page.
    ///   - limit: The most rows to return; fewer means there are no more.
    /// - Returns: The rows.
    /// - Throws: ``VaultError/integrity(_:)`` for a row of unknown kind; storage errors.
    func rows(kind: RecordKind, after recordID: [UInt8]?, limit: Int) throws -> [RecordRow]

    /// The row with a record id.
    ///
    /// - Parameter id: The record id.
    /// - Returns: The row, or `nil` when there is none.
    /// - Throws: ``VaultError/integrity(_:)`` for a row of unknown kind; storage errors.
    func row(id: [UInt8]) throws -> RecordRow?

    /// The ids of the records filed under a keyed term hash, in record id order.
    ///
    /// - Parameter term: The keyed hash of an index term.
    /// - Returns: The record ids (some may name records since deleted or moved, which the caller
    ///   tells by opening them).
    /// - Throws: Storage errors.
    func recordIDs(term: [UInt8]) throws -> [[UInt8]]

    /// The next entries of the index table after an entry, in the table's order (by term, then
    /// record id, as bytes): a page of the filed entries, so that a caller going through all of
    /// them holds one page at a time.
    ///
    /// - Parameters:
    ///   - entry: The entry the page starts after, or `nil` for the first page.
    ///   - limit: The most entries to return; fewer means there are no more.
    /// - Returns: The entries.
    /// - Throws: Storage errors.
    func filedIndexEntries(after entry: IndexEntry?, limit: Int) throws -> [IndexEntry]

    /// The entries still waiting in the rows of the records above the mark, as the rows list them:
    /// a record may list a term twice, and the index table may hold the same entry too.
    ///
    /// - Returns: The entries.
    /// - Throws: Storage errors.
    func unfiledIndexEntries() throws -> [IndexEntry]

    /// The id and version of every row of one kind, in record id order, from clear columns only: what
    /// a cache of opened rows compares with to open only the rows that are new or changed. The ids
    /// come as words: a listing of every token then holds no array per token.
    ///
    /// - Parameter kind: The kind of rows to list.
    /// - Returns: The ids and versions.
    /// - Throws: ``VaultError/integrity(_:)`` for an id that is not 16 bytes (both schemas refuse
    ///   one); storage errors.
    func versions(kind: RecordKind) throws -> [(id: SixteenBytes, version: UInt64)]

    /// How many rows of one kind there are and how many sealed bytes they hold, from clear columns
    /// only (no key needed).
    ///
    /// - Parameter kind: The kind of rows to count.
    /// - Returns: The row count and the total length of their sealed blobs.
    /// - Throws: Storage errors.
    func sizes(kind: RecordKind) throws -> (count: Int, sealedByteCount: Int)

    // MARK: Sealed digests

    /// The sealed digest of one scope.
    ///
    /// - Parameter scope: A group's scope id, or `nil` for the vault-wide digest.
    /// - Returns: The sealed bytes, or `nil` when the scope has none.
    /// - Throws: Storage errors.
    func sealedDigest(scope: [UInt8]?) throws -> [UInt8]?

    /// The scope ids of every group digest stored.
    ///
    /// - Returns: The scope ids, in order.
    /// - Throws: Storage errors.
    func digestScopes() throws -> [[UInt8]]
}

extension RecordReader {
    /// Calls `body` with every row, or every row of `kind`, in record id order, a page of at most
    /// `limit` rows at a time: a caller going through all of them holds one page at a time. Call it
    /// inside one read transaction, so that the pages come from one snapshot.
    ///
    /// - Throws: What the paged reads and `body` throw.
    func forEachPage(of kind: RecordKind? = nil, limit: Int, _ body: ([RecordRow]) throws -> Void) throws {
        var last: [UInt8]?
        while true {
            let page = try kind.map { try rows(kind: $0, after: last, limit: limit) } ?? rows(after: last, limit: limit)
            try body(page)
            guard page.count == limit, let next = page.last?.id else { return }
            last = next
        }
    }

    /// ``forEachPage(of:limit:_:)`` with each page first handed to `prepare` on other threads, and
    /// `body` called on this thread with each page prepared, in order: the work on a page that is
    /// independent of the database (opening, sealing, hashing) runs while `body` writes the page
    /// before, on the connection's thread. A page's rows must keep their ids, so the next page
    /// starts where the one handed over ended. `prepare` never runs after this returns, even after
    /// a throw, so it may use what the caller holds only for the call (its keys, a closure).
    ///
    /// - Throws: What the paged reads, `prepare` and `body` throw.
    func forEachPage<Prepared: Sendable>(
        of kind: RecordKind? = nil, limit: Int, preparing prepare: @Sendable ([RecordRow]) throws -> Prepared,
        _ body: (Prepared) throws -> Void
    ) throws {
        try withoutActuallyEscaping(prepare) { prepare in
            var inFlight: BackgroundResult<Prepared>?
            defer { _ = try? inFlight?.value() }
            try forEachPage(of: kind, limit: limit) { page in
                let previous = inFlight
                inFlight = BackgroundResult { try prepare(page) }
                if let previous { try body(previous.value()) }
            }
            if let last = inFlight {
                inFlight = nil
                try body(last.value())
            }
        }
    }

    /// Calls `body` with every index entry, filed or waiting, once each, in no particular order,
    /// for ``Vault/verify()``. The filed entries come a page of ``IndexEntry/perPage`` at a time:
    /// an index holds several entries per token, so a list of all of them grows with the vault.
    /// Filed entries are unique by the table's key; only the few waiting entries, and the filed
    /// ones of records at or above the smallest waiting id (which no write makes), go in a set.
    /// Call it inside one read transaction, so that the pages come from one snapshot.
    ///
    /// - Throws: What the reads and `body` throw.
    package func forEachIndexEntry(_ body: (IndexEntry) throws -> Void) throws {
        let unfiled = try unfiledIndexEntries()
        let firstUnfiled = unfiled.min { $0.recordID.lexicographicallyPrecedes($1.recordID) }?.recordID
        var seen = Set<IndexEntry>()
        var last: IndexEntry?
        while true {
            let page = try filedIndexEntries(after: last, limit: IndexEntry.perPage)
            for entry in page {
                if let firstUnfiled, !entry.recordID.lexicographicallyPrecedes(firstUnfiled) { seen.insert(entry) }
                try body(entry)
            }
            guard page.count == IndexEntry.perPage, let next = page.last else { break }
            last = next
        }
        for entry in unfiled where seen.insert(entry).inserted { try body(entry) }
    }
}

/// One row of the token index: a record filed under the keyed hash of one of its terms.
package struct IndexEntry: Hashable, Comparable {
    /// The term's keyed hash (``IndexTerm/hash(key:)``).
    package let term: [UInt8]
    /// The record's id.
    package let recordID: [UInt8]

    /// An entry.
    package init(term: [UInt8], recordID: [UInt8]) {
        self.term = term
        self.recordID = recordID
    }

    /// The entry as four big-endian words, the term's two then the record id's, when both are 16
    /// bytes as the vault writes them: ordered as the entry, and hashed and compared without
    /// touching the heap. `nil` for other lengths, which both schemas refuse.
    var words: SIMD4<UInt64>? {
        guard let term = SixteenBytes(term), let id = SixteenBytes(recordID) else { return nil }
        return SIMD4(term.high, term.low, id.high, id.low)
    }

    /// The entry of ``words``.
    init(words: SIMD4<UInt64>) {
        self.init(
            term: SixteenBytes(high: words[0], low: words[1]).bytes,
            recordID: SixteenBytes(high: words[2], low: words[3]).bytes)
    }

    /// How many filed entries a page of ``RecordReader/forEachIndexEntry(_:)`` reads: one statement
    /// each, and what the walk holds at once, whatever the size of the vault.
    package static let perPage = 8_192

    /// Hashes the bytes a buffer at a time, where an array of bytes makes a call per byte.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(term.count)
        term.withUnsafeBytes { hasher.combine(bytes: $0) }
        recordID.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    /// The index's own order: by term, then record id, as bytes.
    package static func < (lhs: IndexEntry, rhs: IndexEntry) -> Bool {
        lhs.term == rhs.term
            ? lhs.recordID.lexicographicallyPrecedes(rhs.recordID) : lhs.term.lexicographicallyPrecedes(rhs.term)
    }
}
