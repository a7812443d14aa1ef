import VaultStorage

/// The record store of a vault file: every statement that reads or writes the `records`,
/// `record_index`, `integrity` and `group_integrity` tables is in this file.
///
/// It wraps one connection inside one transaction, so, like the connection, it is not `Sendable`.
package struct SQLiteRecordStore: RecordStore {
    private let db: SQLiteConnection

    /// A store over `db`, which must be inside a transaction for as long as the store is used.
    ///
    /// - Parameter db: A connection to a vault file (or an in-memory vault) with its tables created.
    package init(_ db: SQLiteConnection) {
        self.db = db
    }

    private static let columns = "record_id, kind, lookup, domain, policy, version, sealed, scope"

    // MARK: Records

    /// The row filed under a look-up tag (the `lookup` column is unique).
    package func row(lookup: [UInt8]) throws -> RecordRow? {
        try db.queryFirst("SELECT \(Self.columns) FROM records WHERE lookup = ?", [.blob(lookup)], row: Self.row)
    }

    /// The row with a record id (the primary key).
    package func row(id: [UInt8]) throws -> RecordRow? {
        try db.queryFirst("SELECT \(Self.columns) FROM records WHERE record_id = ?", [.blob(id)], row: Self.row)
    }

    /// Every row, in record id order (the table's own order, so no sort).
    package func rows() throws -> [RecordRow] {
        try db.query("SELECT \(Self.columns) FROM records ORDER BY record_id", row: Self.row)
    }

    /// Every row of one kind, in record id order (the order of the `records_by_kind` index).
    package func rows(kind: RecordKind) throws -> [RecordRow] {
        try db.query(
            "SELECT \(Self.columns) FROM records WHERE kind = ? ORDER BY record_id", [.integer(Int64(kind.rawValue))],
            row: Self.row)
    }

    /// The ids and versions of one kind's rows, in record id order, without reading a sealed blob.
    /// In a format version 3 file `records_by_kind` covers the query: no table row is read.
    package func versions(kind: RecordKind) throws -> [(id: [UInt8], version: UInt64)] {
        try db.query(
            "SELECT record_id, version FROM records WHERE kind = ? ORDER BY record_id",
            [.integer(Int64(kind.rawValue))]
        ) { (id: $0.blob(0), version: UInt64(bitPattern: $0.integer(1))) }
    }

    /// The count and sealed bytes of one kind's rows, summed by SQLite.
    package func sizes(kind: RecordKind) throws -> (count: Int, sealedByteCount: Int) {
        try db.queryFirst(
            "SELECT count(*), coalesce(sum(length(sealed)), 0) FROM records WHERE kind = ?",
            [.integer(Int64(kind.rawValue))]
        ) { (Int($0.integer(0)), Int($0.integer(1))) } ?? (0, 0)
    }

    /// Inserts the row; SQLite refuses a duplicate id or look-up tag.
    package func insert(_ row: RecordRow) throws {
        try db.run("INSERT INTO records (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", Self.values(of: row))
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
    }

    /// Deletes the row where its id and version still match, and checks one row went.
    package func delete(_ row: RecordRow) throws {
        try db.run(
            "DELETE FROM records WHERE record_id = ? AND version = ?",
            [.blob(row.id), .integer(Int64(bitPattern: row.version))])
        guard db.changes == 1 else {
            throw VaultError.conflict("the record was changed or removed since it was read")
        }
    }

    // MARK: Index

    /// The entries of one term: a range of the primary key, already in record id order.
    package func recordIDs(term: [UInt8]) throws -> [[UInt8]] {
        try db.query("SELECT record_id FROM record_index WHERE term = ?", [.blob(term)]) { $0.blob(0) }
    }

    /// Every entry, in key order.
    package func indexEntries() throws -> [IndexEntry] {
        try db.query("SELECT term, record_id FROM record_index") { IndexEntry(term: $0.blob(0), recordID: $0.blob(1)) }
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

    /// How many index entries one batch insert takes (two parameters each, well under SQLite's limit).
    private static let indexEntriesPerInsert = 256

    private static let batchIndexInsert =
        "INSERT OR IGNORE INTO record_index (term, record_id) VALUES "
        + repeatElement("(?, ?)", count: indexEntriesPerInsert).joined(separator: ", ")

    /// One delete per entry, each a primary-key look-up.
    package func removeIndexEntries(_ entries: [IndexEntry]) throws {
        for entry in entries {
            try db.run(
                "DELETE FROM record_index WHERE term = ? AND record_id = ?", [.blob(entry.term), .blob(entry.recordID)])
        }
    }

    /// Empties `record_index`.
    package func removeAllIndexEntries() throws {
        try db.run("DELETE FROM record_index", [])
    }

    // MARK: Sealed digests

    /// Reads `integrity` (vault-wide) or `group_integrity` (one group).
    package func sealedDigest(scope: [UInt8]?) throws -> [UInt8]? {
        if let scope {
            return try db.queryFirst("SELECT sealed FROM group_integrity WHERE scope = ?", [.blob(scope)]) {
                $0.blob(0)
            }
        }
        return try db.queryFirst("SELECT sealed FROM integrity WHERE singleton = 1") { $0.blob(0) }
    }

    /// Upserts into `integrity` (vault-wide) or `group_integrity` (one group).
    package func setSealedDigest(_ sealed: [UInt8], scope: [UInt8]?) throws {
        if let scope {
            try db.run(
                "INSERT INTO group_integrity (scope, sealed) VALUES (?, ?) "
                    + "ON CONFLICT (scope) DO UPDATE SET sealed = excluded.sealed",
                [.blob(scope), .blob(sealed)])
        } else {
            try db.run(
                "INSERT INTO integrity (singleton, sealed) VALUES (1, ?) "
                    + "ON CONFLICT (singleton) DO UPDATE SET sealed = excluded.sealed",
                [.blob(sealed)])
        }
    }

    /// The `scope` column of `group_integrity`, in order.
    package func digestScopes() throws -> [[UInt8]] {
        try db.query("SELECT scope FROM group_integrity ORDER BY scope") { $0.blob(0) }
    }

    /// Empties `group_integrity`.
    package func removeGroupDigests() throws {
        try db.run("DELETE FROM group_integrity", [])
    }

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
    private static func values(of row: RecordRow) -> [SQLiteValue] {
        [
            .blob(row.id), .integer(Int64(row.kind.rawValue)), row.lookup.map { .blob($0) } ?? .null,
            .blob(row.domainID), .integer(row.policyCode), .integer(Int64(bitPattern: row.version)),
            .blob(row.sealed), row.scope.map { .blob($0) } ?? .null,
        ]
    }
}
