/// A ``RecordReader`` over rows fetched ahead by their look-up tags
/// (``VaultBackend/epochAndRows(lookups:)``): it answers for those tags, present or absent, and
/// throws ``Miss`` for anything else, so the caller reads again in a real transaction.
struct PrefetchedRecords: RecordReader {
    /// A read the prefetched rows cannot answer.
    struct Miss: Error {}

    // A read prefetches one or two tags: comparing with each costs less than hashing them.
    private let fetched: [[UInt8]]
    private let found: [RecordRow]

    /// The rows found for `lookups`; a tag in `lookups` with no row reads as absent.
    init(lookups: [[UInt8]], rows: [RecordRow]) {
        fetched = lookups
        found = rows
    }

    func row(lookup: [UInt8]) throws -> RecordRow? {
        guard fetched.contains(lookup) else { throw Miss() }
        return found.first { $0.lookup == lookup }
    }

    func containsRow(lookup: [UInt8]) throws -> Bool {
        try row(lookup: lookup) != nil
    }

    func rows() throws -> [RecordRow] { throw Miss() }

    func rows(after recordID: [UInt8]?, limit: Int) throws -> [RecordRow] { throw Miss() }

    func rows(kind: RecordKind) throws -> [RecordRow] { throw Miss() }

    func rows(kind: RecordKind, after recordID: [UInt8]?, limit: Int) throws -> [RecordRow] { throw Miss() }

    func row(id: [UInt8]) throws -> RecordRow? { throw Miss() }

    func recordIDs(term: [UInt8]) throws -> [[UInt8]] { throw Miss() }

    func filedIndexEntries(after entry: IndexEntry?, limit: Int) throws -> [IndexEntry] { throw Miss() }

    func unfiledIndexEntries() throws -> [IndexEntry] { throw Miss() }

    func versions(kind: RecordKind) throws -> [(id: SixteenBytes, version: UInt64)] { throw Miss() }

    func sizes(kind: RecordKind) throws -> (count: Int, sealedByteCount: Int) { throw Miss() }

    func sealedDigest(scope: [UInt8]?) throws -> [UInt8]? { throw Miss() }

    func digestScopes() throws -> [[UInt8]] { throw Miss() }
}
