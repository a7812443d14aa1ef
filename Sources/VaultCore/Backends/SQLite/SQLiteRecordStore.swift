import VaultStorage

/// The record store of a vault file: every statement that reads or writes the `records`,
/// `record_index`, `record_index_state`, `group_integrity` and (before format version 5)
/// `integrity` tables is in this file.
///
/// From format version 5 the vault-wide sealed digest is a row of `records` itself, the digest row,
/// whose id sorts after every record id: a commit rewrites the digest on the table's last page,
/// which a new record (ids count up) dirties anyway, instead of on a page of its own. Every query of
/// records leaves that row out.
///
/// In a write transaction, what it reads and writes also goes into a ``KnownRecordState``, and the
/// reads that state can answer are answered from it, as ``PostgresRecordStore`` does: a store of a
/// token into a vault no other connection wrote since this one's last write reads nothing first.
///
/// It wraps one connection inside one transaction, so, like the connection, it is not `Sendable`.
package struct SQLiteRecordStore: RecordStore {
    private let db: SQLiteConnection
    private let known: KnownRecordState?

    /// A store over `db`, which must be inside a transaction for as long as the store is used.
    ///
    /// - Parameters:
    ///   - db: A connection to a vault file (or an in-memory vault) with its tables created.
    ///   - known: What a write transaction knows, read from and kept up to date; `nil` for a read
    ///     transaction.
    init(_ db: SQLiteConnection, known: KnownRecordState?) {
        self.db = db
        self.known = known
    }

    /// A store over `db`, which must be inside a transaction for as long as the store is used; it
    /// reads everything from the file.
    ///
    /// - Parameter db: A connection to a vault file (or an in-memory vault) with its tables created.
    package init(_ db: SQLiteConnection) {
        self.init(db, known: nil)
    }

    private static let columns = "record_id, kind, lookup, domain, policy, version, sealed, scope"

    /// The id of the digest row: 16 bytes of 0xFF, above every id ``nextRecordID()`` hands out.
    package static let digestRowID = [UInt8](repeating: 0xFF, count: VaultFormat.idByteCount)

    /// The digest row's id as an SQL literal, so queries that must leave it out compare with a
    /// constant.
    static let digestRowIDLiteral = "x'" + String(repeating: "FF", count: VaultFormat.idByteCount) + "'"

    /// What the digest row holds besides its sealed bytes: no kind of ``RecordKind`` (so no query by
    /// kind meets it), no look-up tag, no terms, and a version that never changes, so its
    /// `records_by_kind` entry is written once.
    static let digestRowInsert =
        "INSERT INTO records (record_id, kind, lookup, domain, policy, version, sealed) "
        + "VALUES (\(digestRowIDLiteral), 0, NULL, x'', 0, 0, ?)"

    // The statements every store runs, spelled out once: building them on each call cost more
    // than looking them up among the connection's prepared statements.
    private static let rowByLookup = "SELECT \(columns) FROM records WHERE lookup = ?"
    private static let insertRow = "INSERT INTO records (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    static let insertRowWithTerms = "INSERT INTO records (\(columns), terms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
    private static let digestRowQuery = "SELECT sealed FROM records WHERE record_id = \(digestRowIDLiteral)"
    static let digestRowUpdate = "UPDATE records SET sealed = ? WHERE record_id = \(digestRowIDLiteral)"

    // MARK: Records

    /// The row filed under a look-up tag (the `lookup` column is unique).
    package func row(lookup: [UInt8]) throws -> RecordRow? {
        if let row = known?.rows[BytesKey(lookup)] { return row }
        let row = try db.queryFirst(Self.rowByLookup, [.blob(lookup)], row: Self.row)
        if let known, row.map(known.keeps) ?? true { known.rows[BytesKey(lookup)] = .some(row) }
        return row
    }

    /// Whether a row carries the look-up tag: answered from the tag's unique index alone, without
    /// reading the row (a token's is a few KiB) or mapping it.
    package func containsRow(lookup: [UInt8]) throws -> Bool {
        if let contains = known?.contains(lookup) { return contains }
        let contains =
            try db.queryFirst("SELECT 1 FROM records WHERE lookup = ?", [.blob(lookup)]) { _ in true } ?? false
        known?.contained[BytesKey(lookup)] = contains
        return contains
    }

    /// The row with a record id (the primary key).
    package func row(id: [UInt8]) throws -> RecordRow? {
        try db.queryFirst(
            "SELECT \(Self.columns) FROM records WHERE record_id = ? AND record_id < \(Self.digestRowIDLiteral)",
            [.blob(id)], row: Self.row)
    }

    /// Every row, in record id order (the table's own order, so no sort).
    package func rows() throws -> [RecordRow] {
        try db.query(
            "SELECT \(Self.columns) FROM records WHERE record_id < \(Self.digestRowIDLiteral) ORDER BY record_id",
            row: Self.row)
    }

    package func rows(after recordID: [UInt8]?, limit: Int) throws -> [RecordRow] {
        guard let recordID else {
            return try db.query(
                "SELECT \(Self.columns) FROM records WHERE record_id < \(Self.digestRowIDLiteral) "
                    + "ORDER BY record_id LIMIT ?",
                [.integer(Int64(limit))], row: Self.row)
        }
        return try db.query(
            "SELECT \(Self.columns) FROM records WHERE record_id > ? AND record_id < \(Self.digestRowIDLiteral) "
                + "ORDER BY record_id LIMIT ?",
            [.blob(recordID), .integer(Int64(limit))], row: Self.row)
    }

    /// Every row of one kind, in record id order (the order of the `records_by_kind` index).
    package func rows(kind: RecordKind) throws -> [RecordRow] {
        try db.query(
            "SELECT \(Self.columns) FROM records WHERE kind = ? ORDER BY record_id", [.integer(Int64(kind.rawValue))],
            row: Self.row)
    }

    package func rows(kind: RecordKind, after recordID: [UInt8]?, limit: Int) throws -> [RecordRow] {
        guard let recordID else {
            return try db.query(
                "SELECT \(Self.columns) FROM records WHERE kind = ? ORDER BY record_id LIMIT ?",
                [.integer(Int64(kind.rawValue)), .integer(Int64(limit))], row: Self.row)
        }
        return try db.query(
            "SELECT \(Self.columns) FROM records WHERE kind = ? AND record_id > ? ORDER BY record_id LIMIT ?",
            [.integer(Int64(kind.rawValue)), .blob(recordID), .integer(Int64(limit))], row: Self.row)
    }

    /// The ids and versions of one kind's rows, in record id order, without reading a sealed blob.
    /// In a format version 3 file `records_by_kind` covers the query: no table row is read.
    package func versions(kind: RecordKind) throws -> [(id: SixteenBytes, version: UInt64)] {
        try db.query(
            "SELECT record_id, version FROM records WHERE kind = ? ORDER BY record_id",
            [.integer(Int64(kind.rawValue))]
        ) { row in
            (id: try row.withBlob(0) { try SixteenBytes(recordID: $0) }, version: UInt64(bitPattern: row.integer(1)))
        }
    }

    /// The count and sealed bytes of one kind's rows, summed by SQLite.
    package func sizes(kind: RecordKind) throws -> (count: Int, sealedByteCount: Int) {
        try db.queryFirst(
            "SELECT count(*), coalesce(sum(length(sealed)), 0) FROM records WHERE kind = ?",
            [.integer(Int64(kind.rawValue))]
        ) { (Int($0.integer(0)), Int($0.integer(1))) } ?? (0, 0)
    }

    /// An id above every id in the table (``UnfiledTerms/recordID(after:)``). New rows so go at the
    /// end of the table (and of `records_by_kind`), filling its pages one after another: a commit
    /// writes the last page, and pages end up full rather than the two thirds random inserts leave.
    /// The largest id is the last key of the primary key, so this is one descent of the tree.
    package func nextRecordID() throws -> [UInt8] {
        UnfiledTerms.recordID(after: try largestRecordID())
    }

    /// Inserts the row; SQLite refuses a duplicate id or look-up tag.
    package func insert(_ row: RecordRow) throws {
        try db.run(Self.insertRow, Self.values(of: row))
        known?.inserted(row)
    }

    /// Inserts the row with its term hashes in its own `terms` column when its id is above the mark
    /// (a new record's always is), so the row is written once; then files every waiting record's
    /// terms if this one fills ``UnfiledTerms/limit``, as ``fileTerms(_:removing:of:)`` does.
    package func insert(_ row: RecordRow, terms: [[UInt8]]) throws {
        let mark = try filedThrough()
        guard let column = UnfiledTerms.column(terms), UnfiledTerms.isAbove(row.id, mark: mark) else {
            try insert(row)
            try addIndexEntries(terms.map { IndexEntry(term: $0, recordID: row.id) })
            return
        }
        try db.run(Self.insertRowWithTerms, Self.values(of: row) + [.blob(column)])
        known?.inserted(row)
        if UnfiledTerms.fillsTheLimit(mark: mark, recordID: row.id), let largest = try largestRecordID() {
            try fileAll(after: mark, through: largest)
        }
    }

    /// Rewrites the row in place where its id and version still match, and checks one row changed.
    package func update(_ row: RecordRow, expectedVersion: UInt64) throws {
        try db.run(
            "UPDATE records SET kind = ?2, lookup = ?3, domain = ?4, policy = ?5, version = ?6, sealed = ?7, scope = ?8 "
                + "WHERE record_id = ?1 AND version = ?9",
            Self.values(of: row) + [.integer(Int64(bitPattern: expectedVersion))])
        guard db.changes == 1 else {
            throw VaultError.conflict("the record was changed or removed since it was read")
        }
        known?.updated(row)
    }

    /// Deletes the row where its id and version still match, and checks one row went.
    package func delete(_ row: RecordRow) throws {
        try db.run(
            "DELETE FROM records WHERE record_id = ? AND version = ?",
            [.blob(row.id), .integer(Int64(bitPattern: row.version))])
        guard db.changes == 1 else {
            throw VaultError.conflict("the record was changed or removed since it was read")
        }
        known?.deleted(row)
    }

    // MARK: Index

    // A record with an id above the mark in `record_index_state` keeps the hashes of its terms in its
    // own `terms` column (16 bytes each, one after another), written on the page its row is on;
    // `record_index` files the others. Look-ups and removals read both places.

    /// The entries of one term: a range of the primary key, and the unfiled records whose terms hold
    /// the hash (a scan of at most about ``UnfiledTerms/limit`` rows).
    package func recordIDs(term: [UInt8]) throws -> [[UInt8]] {
        let filed = try db.query("SELECT record_id FROM record_index WHERE term = ?", [.blob(term)]) { $0.blob(0) }
        let unfiled = try db.query(
            "SELECT record_id, terms FROM records WHERE record_id > ? AND terms IS NOT NULL AND instr(terms, ?) > 0",
            [.blob(try filedThrough()), .blob(term)]
        ) { (id: $0.blob(0), terms: $0.blob(1)) }
        let matching = unfiled.filter { UnfiledTerms.hashes(in: $0.terms).contains(term) }.map(\.id)
        guard !matching.isEmpty else { return filed }
        return Set(filed + matching).sorted { $0.lexicographicallyPrecedes($1) }
    }

    package func filedIndexEntries(after entry: IndexEntry?, limit: Int) throws -> [IndexEntry] {
        let read = { (row: SQLiteRow) in IndexEntry(term: row.blob(0), recordID: row.blob(1)) }
        guard let entry else {
            return try db.query(
                "SELECT term, record_id FROM record_index ORDER BY term, record_id LIMIT ?", [.integer(Int64(limit))],
                row: read)
        }
        return try db.query(
            "SELECT term, record_id FROM record_index WHERE (term, record_id) > (?, ?) "
                + "ORDER BY term, record_id LIMIT ?",
            [.blob(entry.term), .blob(entry.recordID), .integer(Int64(limit))], row: read)
    }

    package func unfiledIndexEntries() throws -> [IndexEntry] {
        try unfiledEntries(after: try filedThrough())
    }

    /// For a record above the mark, writes the hashes into its row (whose page the write of the row
    /// dirtied already); for one below, moves its entries in `record_index`. Once
    /// ``UnfiledTerms/limit`` records have been added above the mark, files all of them in
    /// `record_index`, in the index's order, in this same transaction.
    package func fileTerms(_ terms: [[UInt8]], removing removed: [[UInt8]], of recordID: [UInt8]) throws {
        let mark = try filedThrough()
        for term in removed {
            try db.run("DELETE FROM record_index WHERE term = ? AND record_id = ?", [.blob(term), .blob(recordID)])
        }
        guard UnfiledTerms.isAbove(recordID, mark: mark) else {
            try addIndexEntries(terms.map { IndexEntry(term: $0, recordID: recordID) })
            return
        }
        try db.run(
            "UPDATE records SET terms = ? WHERE record_id = ?",
            [UnfiledTerms.column(terms).map { .blob($0) } ?? .null, .blob(recordID)])
        if UnfiledTerms.fillsTheLimit(mark: mark, recordID: recordID), let largest = try largestRecordID() {
            try fileAll(after: mark, through: largest)
        }
    }

    /// Inserts in the index's order: filing a whole vault again then fills each page of the index
    /// in turn instead of touching a random one per entry. Many entries (an upgrade filing a whole
    /// vault) go ``indexEntriesPerInsert`` to a statement: one statement per entry spent more time
    /// binding and stepping than inserting.
    package func addIndexEntries(_ entries: [IndexEntry]) throws {
        let sorted = entries.sorted()
        var start = 0
        var values: [SQLiteValue] = []
        values.reserveCapacity(2 * Self.indexEntriesPerInsert)
        while sorted.count - start >= Self.indexEntriesPerInsert {
            values.removeAll(keepingCapacity: true)
            for entry in sorted[start..<start + Self.indexEntriesPerInsert] {
                values.append(.blob(entry.term))
                values.append(.blob(entry.recordID))
            }
            try db.run(Self.batchIndexInsert, values)
            start += Self.indexEntriesPerInsert
        }
        for entry in sorted[start...] {
            try db.run(
                "INSERT OR IGNORE INTO record_index (term, record_id) VALUES (?, ?)",
                [.blob(entry.term), .blob(entry.recordID)])
        }
    }

    /// Empties `record_index` and every row's `terms`, and moves the mark to the largest id.
    package func removeAllIndexEntries() throws {
        try db.execute("DELETE FROM record_index; UPDATE records SET terms = NULL WHERE terms IS NOT NULL;")
        try setFiledThrough(try largestRecordID() ?? [])
    }

    /// Files the terms of the records above `mark` in `record_index`, clears them from the rows,
    /// and moves the mark to `largest`.
    private func fileAll(after mark: [UInt8], through largest: [UInt8]) throws {
        try addIndexEntries(unfiledEntries(after: mark))
        try db.run("UPDATE records SET terms = NULL WHERE record_id > ? AND terms IS NOT NULL", [.blob(mark)])
        try setFiledThrough(largest)
    }

    /// The entries kept in the rows of records above `mark`.
    private func unfiledEntries(after mark: [UInt8]) throws -> [IndexEntry] {
        try db.query(
            "SELECT record_id, terms FROM records WHERE record_id > ? AND terms IS NOT NULL", [.blob(mark)]
        ) { row in
            let id = row.blob(0)
            return UnfiledTerms.hashes(in: row.blob(1)).map { IndexEntry(term: $0, recordID: id) }
        }.flatMap { $0 }
    }

    /// The mark: the largest record id `record_index` files every term of. Empty when the state row is
    /// missing, so every row's terms are read (a look-up opens every match, so none is trusted).
    private func filedThrough() throws -> [UInt8] {
        if let mark = known?.filedThrough { return mark }
        let mark =
            try db.queryFirst("SELECT filed_through FROM record_index_state WHERE singleton = 1") { $0.blob(0) } ?? []
        known?.filedThrough = mark
        return mark
    }

    private func setFiledThrough(_ id: [UInt8]) throws {
        try db.run(
            "INSERT INTO record_index_state (singleton, filed_through) VALUES (1, ?) "
                + "ON CONFLICT (singleton) DO UPDATE SET filed_through = excluded.filed_through",
            [.blob(id)])
        known?.filedThrough = id
    }

    /// The largest id below the digest row's: the last key before it, one descent of the tree.
    private func largestRecordID() throws -> [UInt8]? {
        if let largest = known?.largestRecordID { return largest }
        let largest = try db.queryFirst(Self.largestRecordIDQuery) { $0.blob(0) }
        known?.largestRecordID = .some(largest)
        return largest
    }

    /// The statement of ``largestRecordID()``, which the index's mark starts from too.
    static let largestRecordIDQuery =
        "SELECT record_id FROM records WHERE record_id < \(digestRowIDLiteral) ORDER BY record_id DESC LIMIT 1"

    /// How many index entries one batch insert takes (two parameters each, well under SQLite's limit).
    private static let indexEntriesPerInsert = 256

    private static let batchIndexInsert =
        "INSERT OR IGNORE INTO record_index (term, record_id) VALUES "
        + repeatElement("(?, ?)", count: indexEntriesPerInsert).joined(separator: ", ")

    // MARK: Sealed digests

    /// Reads the digest row (vault-wide; the `integrity` table in a file older than format
    /// version 5) or `group_integrity` (one group).
    package func sealedDigest(scope: [UInt8]?) throws -> [UInt8]? {
        if let sealed = known?.sealedDigests[BytesKey(scope ?? [])] { return sealed }
        let sealed = try storedDigest(scope: scope)
        known?.sealedDigests[BytesKey(scope ?? [])] = .some(sealed)
        return sealed
    }

    private func storedDigest(scope: [UInt8]?) throws -> [UInt8]? {
        if let scope {
            return try db.queryFirst("SELECT sealed FROM group_integrity WHERE scope = ?", [.blob(scope)]) {
                $0.blob(0)
            }
        }
        if let sealed = try db.queryFirst(
            Self.digestRowQuery, row: { $0.blob(0) })
        {
            return sealed
        }
        guard try SQLiteSchema.hasDigestTable(db) else { return nil }
        return try db.queryFirst("SELECT sealed FROM integrity WHERE singleton = 1") { $0.blob(0) }
    }

    /// Rewrites the digest row (vault-wide; the `integrity` table in a file older than format
    /// version 5, which has no digest row), or upserts into `group_integrity` (one group).
    package func setSealedDigest(_ sealed: [UInt8], scope: [UInt8]?) throws {
        try storeDigest(sealed, scope: scope)
        known?.sealedDigests[BytesKey(scope ?? [])] = .some(sealed)
    }

    private func storeDigest(_ sealed: [UInt8], scope: [UInt8]?) throws {
        if let scope {
            try db.run(
                "INSERT INTO group_integrity (scope, sealed) VALUES (?, ?) "
                    + "ON CONFLICT (scope) DO UPDATE SET sealed = excluded.sealed",
                [.blob(scope), .blob(sealed)])
            return
        }
        try db.run(Self.digestRowUpdate, [.blob(sealed)])
        guard db.changes == 0 else { return }
        if try SQLiteSchema.hasDigestTable(db) {
            try db.run(
                "INSERT INTO integrity (singleton, sealed) VALUES (1, ?) "
                    + "ON CONFLICT (singleton) DO UPDATE SET sealed = excluded.sealed",
                [.blob(sealed)])
        } else {
            try db.run(Self.digestRowInsert, [.blob(sealed)])
        }
    }

    /// The `scope` column of `group_integrity`, in order.
    package func digestScopes() throws -> [[UInt8]] {
        try db.query("SELECT scope FROM group_integrity ORDER BY scope") { $0.blob(0) }
    }

    /// Empties `group_integrity`.
    package func removeGroupDigests() throws {
        try db.run("DELETE FROM group_integrity", [])
        known?.sealedDigests = known?.sealedDigests.filter { $0.bytes.isEmpty } ?? LayeredDictionary()
    }

    // MARK: What this process knows

    package var knowsDefaultNamesStoredToken: Bool { known?.defaultNamesStoredToken ?? false }

    package func noteDefaultNamesStoredToken() { known?.defaultNamesStoredToken = true }

    // MARK: Row mapping

    /// Reads a row selected with ``columns``.
    private static func row(_ row: SQLiteRow) throws -> RecordRow {
        guard let kind = RecordKind(rawValue: UInt8(truncatingIfNeeded: row.integer(1))) else {
            throw VaultError.integrity("a record has an unknown kind")
        }
        return RecordRow(
            id: row.blob(0), kind: kind, lookup: row.isNull(2) ? nil : row.blob(2), domainID: row.blob(3),
            policyCode: row.integer(4), version: UInt64(bitPattern: row.integer(5)), sealed: row.blob(6),
            scope: row.isNull(7) ? nil : row.blob(7))
    }

    /// The values of ``columns``, in order, as parameters 1 to 8.
    static func values(of row: RecordRow) -> [SQLiteValue] {
        [
            .blob(row.id), .integer(Int64(row.kind.rawValue)), row.lookup.map { .blob($0) } ?? .null,
            .blob(row.domainID), .integer(row.policyCode), .integer(Int64(bitPattern: row.version)),
            .blob(row.sealed), row.scope.map { .blob($0) } ?? .null,
        ]
    }
}
