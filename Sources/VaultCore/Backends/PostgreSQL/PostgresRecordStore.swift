import VaultStorage

/// The record store of a vault in PostgreSQL: every statement on its `records`, `record_index`,
/// `record_index_state`, `integrity` and `group_integrity` tables.
///
/// The same rows, and the same semantics, as ``SQLiteRecordStore``: ids counting up in their first
/// 8 bytes, compare-and-swap on the version, and an index whose latest records keep their term
/// hashes in their own `terms` column until ``UnfiledTerms/limit`` of them wait,
/// then are filed in `record_index` together. So a vault reads the same whichever backend wrote
/// it. Bound to one transaction of one connection; not `Sendable`.
///
/// In a write transaction, what it reads and writes also goes into a ``KnownRecordState``, and
/// the reads that state can answer are answered from it: so a write run ahead of its transaction
/// (over ``DeferredStatements``) reads nothing from the server.
struct PostgresRecordStore: RecordStore {
    private let db: any PostgresStatementRunner
    private let known: KnownRecordState?

    /// A store over `db`, which must be inside a transaction for as long as the store is used, or
    /// which collects the statements of a write run ahead.
    ///
    /// - Parameter known: What a write transaction knows, read from and kept up to date; `nil`
    ///   for a read transaction.
    init(_ db: any PostgresStatementRunner, known: KnownRecordState? = nil) {
        self.db = db
        self.known = known
    }

    private static let columns = "record_id, kind, lookup, domain, policy, version, sealed, scope"

    /// A new row with its term hashes in its own `terms` column: ``columns`` as `$1` to `$8`, the
    /// terms `$9`.
    static let insertWithTerms =
        "INSERT INTO records (\(columns), terms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"

    /// Replaces the vault-wide sealed digest with `$1`.
    static let setVaultDigest =
        "INSERT INTO integrity (singleton, sealed) VALUES (1, $1) "
        + "ON CONFLICT (singleton) DO UPDATE SET sealed = excluded.sealed"

    // MARK: Records

    func row(lookup: [UInt8]) throws -> RecordRow? {
        if let row = known?.rows[BytesKey(lookup)] { return row }
        let row = try db.queryFirst("SELECT \(Self.columns) FROM records WHERE lookup = $1", [.bytea(lookup)]).map(
            Self.row)
        known?.rows[BytesKey(lookup)] = .some(row)
        return row
    }

    /// Whether a row carries the look-up tag: answered from the tag's unique index, without sending
    /// the row (a token's is a few KiB).
    func containsRow(lookup: [UInt8]) throws -> Bool {
        if let contains = known?.contains(lookup) { return contains }
        let contains = try db.queryFirst("SELECT 1::int8 FROM records WHERE lookup = $1", [.bytea(lookup)]) != nil
        known?.contained[BytesKey(lookup)] = contains
        return contains
    }

    /// The header's key epoch and the rows carrying any of `lookups`, in one statement: run outside
    /// a transaction block, it reads one snapshot.
    ///
    /// - Throws: ``VaultError/integrity(_:)`` when the header is missing, `PostgresError`.
    func epochAndRows(lookups: [[UInt8]]) throws -> (epoch: UInt64, rows: [RecordRow]) {
        let found = try db.query(Self.epochAndRowsStatement(lookupCount: lookups.count), lookups.map { .bytea($0) })
        guard let first = found.first else { throw VaultError.integrity("the vault header is missing") }
        let epoch = UInt64(bitPattern: try first.int8(8))
        return (epoch, try found.filter { !$0.isNull(0) }.map(Self.row))
    }

    /// The statement of ``epochAndRows(lookups:)`` for `lookupCount` tags, `$1` to `$n`; built
    /// once for the counts reads use (one or two tags), not on every read.
    static func epochAndRowsStatement(lookupCount: Int) -> String {
        lookupCount < epochAndRowsStatements.count
            ? epochAndRowsStatements[lookupCount] : makeEpochAndRowsStatement(lookupCount: lookupCount)
    }

    private static let epochAndRowsStatements = (0...2).map(makeEpochAndRowsStatement)

    private static func makeEpochAndRowsStatement(lookupCount: Int) -> String {
        let placeholders = (0..<lookupCount).map { "$\($0 + 1)" }.joined(separator: ", ")
        let matching = lookupCount == 0 ? "false" : "records.lookup IN (\(placeholders))"
        return "SELECT \(qualifiedColumns), vault_header.epoch FROM vault_header "
            + "LEFT JOIN records ON \(matching) WHERE vault_header.singleton = 1"
    }

    /// ``columns``, each named with its table, for a join.
    private static let qualifiedColumns = columns.split(separator: ", ").map { "records.\($0)" }.joined(
        separator: ", ")

    func row(id: [UInt8]) throws -> RecordRow? {
        try db.queryFirst("SELECT \(Self.columns) FROM records WHERE record_id = $1", [.bytea(id)]).map(Self.row)
    }

    func rows() throws -> [RecordRow] {
        try db.query("SELECT \(Self.columns) FROM records ORDER BY record_id").map(Self.row)
    }

    func rows(after recordID: [UInt8]?, limit: Int) throws -> [RecordRow] {
        guard let recordID else {
            return try db.query(
                "SELECT \(Self.columns) FROM records ORDER BY record_id LIMIT $1",
                [.int8(Int64(limit))]
            ).map(Self.row)
        }
        return try db.query(
            "SELECT \(Self.columns) FROM records WHERE record_id > $1 ORDER BY record_id LIMIT $2",
            [.bytea(recordID), .int8(Int64(limit))]
        ).map(Self.row)
    }

    func rows(kind: RecordKind) throws -> [RecordRow] {
        try db.query(
            "SELECT \(Self.columns) FROM records WHERE kind = $1 ORDER BY record_id", [.int8(Int64(kind.rawValue))]
        ).map(Self.row)
    }

    func rows(kind: RecordKind, after recordID: [UInt8]?, limit: Int) throws -> [RecordRow] {
        guard let recordID else {
            return try db.query(
                "SELECT \(Self.columns) FROM records WHERE kind = $1 ORDER BY record_id LIMIT $2",
                [.int8(Int64(kind.rawValue)), .int8(Int64(limit))]
            ).map(Self.row)
        }
        return try db.query(
            "SELECT \(Self.columns) FROM records WHERE kind = $1 AND record_id > $2 ORDER BY record_id LIMIT $3",
            [.int8(Int64(kind.rawValue)), .bytea(recordID), .int8(Int64(limit))]
        ).map(Self.row)
    }

    func versions(kind: RecordKind) throws -> [(id: SixteenBytes, version: UInt64)] {
        try db.query(
            "SELECT record_id, version FROM records WHERE kind = $1 ORDER BY record_id", [.int8(Int64(kind.rawValue))]
        ).map { (id: try SixteenBytes(recordID: try $0.bytea(0)), version: UInt64(bitPattern: try $0.int8(1))) }
    }

    func sizes(kind: RecordKind) throws -> (count: Int, sealedByteCount: Int) {
        guard
            let row = try db.queryFirst(
                "SELECT count(*), coalesce(sum(length(sealed)), 0)::bigint FROM records WHERE kind = $1",
                [.int8(Int64(kind.rawValue))])
        else { return (0, 0) }
        return (Int(try row.int8(0)), Int(try row.int8(1)))
    }

    /// As ``SQLiteRecordStore/nextRecordID()``: ``UnfiledTerms/recordID(after:)``, so new rows go at
    /// the end of the primary key's b-tree.
    func nextRecordID() throws -> [UInt8] {
        UnfiledTerms.recordID(after: try largestRecordID())
    }

    func insert(_ row: RecordRow) throws {
        try db.run(
            "INSERT INTO records (\(Self.columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)", Self.values(of: row))
        known?.inserted(row)
    }

    /// As ``SQLiteRecordStore/insert(_:terms:)``: the row goes in with its term hashes in its own
    /// `terms` column when its id is above the mark (a new record's always is), one statement
    /// instead of an insert and an update of the same row.
    func insert(_ row: RecordRow, terms: [[UInt8]]) throws {
        let mark = try filedThrough()
        guard let column = UnfiledTerms.column(terms), UnfiledTerms.isAbove(row.id, mark: mark) else {
            try insert(row)
            try addIndexEntries(terms.map { IndexEntry(term: $0, recordID: row.id) })
            return
        }
        try db.run(Self.insertWithTerms, Self.values(of: row) + [.bytea(column)])
        known?.inserted(row)
        if UnfiledTerms.fillsTheLimit(mark: mark, recordID: row.id), let largest = try largestRecordID() {
            try fileAll(after: mark, through: largest)
        }
    }

    func update(_ row: RecordRow, expectedVersion: UInt64) throws {
        let changed = try db.run(
            "UPDATE records SET kind = $2, lookup = $3, domain = $4, policy = $5, version = $6, sealed = $7, "
                + "scope = $8 WHERE record_id = $1 AND version = $9",
            Self.values(of: row) + [.int8(Int64(bitPattern: expectedVersion))])
        guard changed == 1 else {
            throw VaultError.conflict("the record was changed or removed since it was read")
        }
        known?.updated(row)
    }

    func delete(_ row: RecordRow) throws {
        let changed = try db.run(
            "DELETE FROM records WHERE record_id = $1 AND version = $2",
            [.bytea(row.id), .int8(Int64(bitPattern: row.version))])
        guard changed == 1 else {
            throw VaultError.conflict("the record was changed or removed since it was read")
        }
        known?.deleted(row)
    }

    // MARK: Index

    func recordIDs(term: [UInt8]) throws -> [[UInt8]] {
        let filed = try db.query("SELECT record_id FROM record_index WHERE term = $1", [.bytea(term)]).map {
            try $0.bytea(0)
        }
        let unfiled = try db.query(
            "SELECT record_id, terms FROM records WHERE record_id > $1 AND terms IS NOT NULL "
                + "AND position($2 in terms) > 0",
            [.bytea(try filedThrough()), .bytea(term)]
        ).map { (id: try $0.bytea(0), terms: try $0.bytea(1)) }
        let matching = unfiled.filter { UnfiledTerms.hashes(in: $0.terms).contains(term) }.map(\.id)
        guard !matching.isEmpty else { return filed }
        return Set(filed + matching).sorted { $0.lexicographicallyPrecedes($1) }
    }

    func filedIndexEntries(after entry: IndexEntry?, limit: Int) throws -> [IndexEntry] {
        let rows =
            try entry.map { entry in
                try db.query(
                    "SELECT term, record_id FROM record_index WHERE (term, record_id) > ($1, $2) "
                        + "ORDER BY term, record_id LIMIT $3",
                    [.bytea(entry.term), .bytea(entry.recordID), .int8(Int64(limit))])
            }
            ?? db.query(
                "SELECT term, record_id FROM record_index ORDER BY term, record_id LIMIT $1", [.int8(Int64(limit))])
        return try rows.map { IndexEntry(term: try $0.bytea(0), recordID: try $0.bytea(1)) }
    }

    func unfiledIndexEntries() throws -> [IndexEntry] {
        try db.query(
            "SELECT record_id, terms FROM records WHERE record_id > $1 AND terms IS NOT NULL",
            [.bytea(try filedThrough())]
        ).flatMap { row in
            let id = try row.bytea(0)
            return UnfiledTerms.hashes(in: try row.bytea(1)).map { IndexEntry(term: $0, recordID: id) }
        }
    }

    func fileTerms(_ terms: [[UInt8]], removing removed: [[UInt8]], of recordID: [UInt8]) throws {
        let mark = try filedThrough()
        for term in removed {
            try db.run("DELETE FROM record_index WHERE term = $1 AND record_id = $2", [.bytea(term), .bytea(recordID)])
        }
        guard UnfiledTerms.isAbove(recordID, mark: mark) else {
            try addIndexEntries(terms.map { IndexEntry(term: $0, recordID: recordID) })
            return
        }
        try db.run(
            "UPDATE records SET terms = $1 WHERE record_id = $2",
            [UnfiledTerms.column(terms).map { .bytea($0) } ?? .null, .bytea(recordID)])
        if UnfiledTerms.fillsTheLimit(mark: mark, recordID: recordID), let largest = try largestRecordID() {
            try fileAll(after: mark, through: largest)
        }
    }

    /// Files the terms of every record above `mark` in `record_index` and moves the mark to `largest`.
    ///
    /// The server splits the `terms` columns itself: one statement, not one round trip per term
    /// (about 2,000 of them for the 512 records a filing covers), and no read, so a write run
    /// ahead can send it with its other statements.
    private func fileAll(after mark: [UInt8], through largest: [UInt8]) throws {
        try db.run(
            "INSERT INTO record_index (term, record_id) "
                + "SELECT substring(records.terms FROM term_index * \(IndexTerm.hashByteCount) + 1 "
                + "FOR \(IndexTerm.hashByteCount)), records.record_id "
                + "FROM records, generate_series(0, length(records.terms) / \(IndexTerm.hashByteCount) - 1) AS term_index "
                + "WHERE records.record_id > $1 AND records.terms IS NOT NULL ON CONFLICT DO NOTHING",
            [.bytea(mark)])
        try db.run("UPDATE records SET terms = NULL WHERE record_id > $1 AND terms IS NOT NULL", [.bytea(mark)])
        try setFiledThrough(largest)
    }

    func addIndexEntries(_ entries: [IndexEntry]) throws {
        for entry in entries.sorted() {
            try db.run(
                "INSERT INTO record_index (term, record_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                [.bytea(entry.term), .bytea(entry.recordID)])
        }
    }

    func removeAllIndexEntries() throws {
        try db.run("DELETE FROM record_index")
        try db.run("UPDATE records SET terms = NULL WHERE terms IS NOT NULL")
        try setFiledThrough(try largestRecordID() ?? [])
    }

    private func filedThrough() throws -> [UInt8] {
        if let mark = known?.filedThrough { return mark }
        let mark = try db.queryFirst("SELECT filed_through FROM record_index_state WHERE singleton = 1")?.bytea(0) ?? []
        known?.filedThrough = mark
        return mark
    }

    private func setFiledThrough(_ id: [UInt8]) throws {
        try db.run(
            "INSERT INTO record_index_state (singleton, filed_through) VALUES (1, $1) "
                + "ON CONFLICT (singleton) DO UPDATE SET filed_through = excluded.filed_through",
            [.bytea(id)])
        known?.filedThrough = id
    }

    /// The last key of the primary key (PostgreSQL has no `max` for `bytea`).
    private func largestRecordID() throws -> [UInt8]? {
        if let largest = known?.largestRecordID { return largest }
        let largest = try db.queryFirst("SELECT record_id FROM records ORDER BY record_id DESC LIMIT 1")?.bytea(0)
        known?.largestRecordID = .some(largest)
        return largest
    }

    // MARK: Sealed digests

    func sealedDigest(scope: [UInt8]?) throws -> [UInt8]? {
        if let sealed = known?.sealedDigests[BytesKey(scope ?? [])] { return sealed }
        let sealed =
            if let scope {
                try db.queryFirst("SELECT sealed FROM group_integrity WHERE scope = $1", [.bytea(scope)])?.bytea(0)
            } else {
                try db.queryFirst("SELECT sealed FROM integrity WHERE singleton = 1")?.bytea(0)
            }
        known?.sealedDigests[BytesKey(scope ?? [])] = .some(sealed)
        return sealed
    }

    func setSealedDigest(_ sealed: [UInt8], scope: [UInt8]?) throws {
        if let scope {
            try db.run(
                "INSERT INTO group_integrity (scope, sealed) VALUES ($1, $2) "
                    + "ON CONFLICT (scope) DO UPDATE SET sealed = excluded.sealed",
                [.bytea(scope), .bytea(sealed)])
        } else {
            try db.run(Self.setVaultDigest, [.bytea(sealed)])
        }
        known?.sealedDigests[BytesKey(scope ?? [])] = .some(sealed)
    }

    func digestScopes() throws -> [[UInt8]] {
        try db.query("SELECT scope FROM group_integrity ORDER BY scope").map { try $0.bytea(0) }
    }

    func removeGroupDigests() throws {
        try db.run("DELETE FROM group_integrity")
        known?.sealedDigests = known?.sealedDigests.filter { $0.bytes.isEmpty } ?? LayeredDictionary()
    }

    // MARK: What this process knows

    var knowsDefaultNamesStoredToken: Bool { known?.defaultNamesStoredToken ?? false }

    func noteDefaultNamesStoredToken() { known?.defaultNamesStoredToken = true }

    // MARK: Row mapping

    private static func row(_ row: PostgresRow) throws -> RecordRow {
        guard let kind = RecordKind(rawValue: UInt8(truncatingIfNeeded: try row.int8(1))) else {
            throw VaultError.integrity("a record has an unknown kind")
        }
        return RecordRow(
            id: try row.bytea(0), kind: kind, lookup: row.isNull(2) ? nil : try row.bytea(2),
            domainID: try row.bytea(3), policyCode: try row.int8(4), version: UInt64(bitPattern: try row.int8(5)),
            sealed: try row.bytea(6), scope: row.isNull(7) ? nil : try row.bytea(7))
    }

    /// The values of ``columns``, in order, as parameters 1 to 8.
    static func values(of row: RecordRow) -> [PostgresValue] {
        [
            .bytea(row.id), .int8(Int64(row.kind.rawValue)), row.lookup.map { .bytea($0) } ?? .null,
            .bytea(row.domainID), .int8(row.policyCode), .int8(Int64(bitPattern: row.version)),
            .bytea(row.sealed), row.scope.map { .bytea($0) } ?? .null,
        ]
    }
}
