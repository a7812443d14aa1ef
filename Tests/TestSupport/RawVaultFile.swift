import Foundation
import VaultCore
import VaultStorage

/// Direct SQL access to a vault file, as an attacker with write access to the file has it:
/// for tamper, swap, delete and rollback tests.
///
/// The schema's `CHECK` constraints (16-byte ids) are switched off on this connection, as they are
/// for anyone who edits the file's bytes, so tests can store truncated ids.
public final class RawVaultFile: Sendable {
    /// One row of the `records` table as stored.
    public struct Record: Sendable, Equatable {
        public let id: [UInt8]
        public let kind: Int64
        public let lookup: [UInt8]?
        public let domain: [UInt8]
        public let version: Int64
        public let policy: Int64
        public let sealed: [UInt8]
    }

    /// One row of the `key_slots` table as stored.
    public struct KeySlot: Sendable, Equatable {
        public let id: [UInt8]
        public let kind: Int64
        public let salt: [UInt8]
        public let wrapped: [UInt8]
        public let publicKey: [UInt8]
        public let grant: [UInt8]
    }

    /// The blob columns of `key_slots`, as tamper tests truncate them.
    public static let keySlotBlobColumns = ["slot_id", "salt", "wrapped", "public_key", "sealed_grant"]

    private let database: SQLiteDatabase

    /// Opens a second connection to `url`.
    ///
    /// - Parameter url: The vault file.
    public init(_ url: URL) throws {
        database = try SQLiteDatabase(path: url.path, mode: .readWrite, busyTimeout: .seconds(10))
        try database.read { try $0.execute("PRAGMA ignore_check_constraints = ON") }
    }

    /// Creates a plain SQLite database (not a vault) with `schema`, as another application would.
    ///
    /// - Parameters:
    ///   - url: Where to create it.
    ///   - schema: The statements to run.
    /// - Returns: The raw file handle.
    public static func create(_ url: URL, schema: String) throws -> RawVaultFile {
        _ = try SecureFile.createExclusive(url.path)
        let raw = try RawVaultFile(url)
        try raw.database.write { try $0.execute(schema) }
        return raw
    }

    /// Every record row (not the digest row, which is no record).
    public func records() throws -> [Record] {
        try database.read { db in
            try db.query(
                "SELECT record_id, kind, lookup, version, policy, sealed, domain FROM records WHERE record_id <> ? "
                    + "ORDER BY record_id", [.blob(SQLiteRecordStore.digestRowID)]
            ) {
                Record(
                    id: $0.blob(0), kind: $0.integer(1), lookup: $0.isNull(2) ? nil : $0.blob(2), domain: $0.blob(6),
                    version: $0.integer(3), policy: $0.integer(4), sealed: $0.blob(5))
            }
        }
    }

    /// Every key slot row, ordered by slot id (the order the vault tries them in).
    public func keySlots() throws -> [KeySlot] {
        try database.read { db in
            try db.query(
                "SELECT slot_id, kind, salt, wrapped, public_key, sealed_grant FROM key_slots ORDER BY slot_id"
            ) {
                KeySlot(
                    id: $0.blob(0), kind: $0.integer(1), salt: $0.blob(2), wrapped: $0.blob(3), publicKey: $0.blob(4),
                    grant: $0.blob(5))
            }
        }
    }

    /// The value of one blob column of one key slot.
    ///
    /// - Parameters:
    ///   - column: One of ``keySlotBlobColumns``.
    ///   - slot: The slot's current id.
    /// - Returns: The stored bytes.
    public func keySlotBlob(_ column: String, ofSlot slot: [UInt8]) throws -> [UInt8] {
        try database.read { db in
            try db.queryFirst("SELECT \(column) FROM key_slots WHERE slot_id = ?", [.blob(slot)]) { $0.blob(0) }
        } ?? []
    }

    /// Deletes one record's row.
    public func delete(_ record: Record) throws {
        try execute("DELETE FROM records WHERE record_id = ?", .blob(record.id))
    }

    /// Inserts a record's row as ``records()`` read it (a token's waiting index terms aside).
    public func insert(_ record: Record) throws {
        try database.write { db in
            try db.run(
                "INSERT INTO records (record_id, kind, lookup, domain, policy, version, sealed) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    .blob(record.id), .integer(record.kind), record.lookup.map(SQLiteValue.blob) ?? .null,
                    .blob(record.domain), .integer(record.policy), .integer(record.version), .blob(record.sealed),
                ])
        }
    }

    /// Replaces the sealed blob of one record.
    public func setSealed(_ sealed: [UInt8], forRecord id: [UInt8]) throws {
        try execute("UPDATE records SET sealed = ? WHERE record_id = ?", .blob(sealed), .blob(id))
    }

    /// Runs one SQL statement with blob, integer or text parameters.
    ///
    /// - Parameters:
    ///   - sql: The statement.
    ///   - values: Its parameters.
    public func execute(_ sql: String, _ values: Parameter...) throws {
        try database.write { db in try db.run(sql, values.map(\.value)) }
    }

    /// Copies the vault file at `url` and its write-ahead log as they are now: what a backup or a
    /// thief takes.
    public static func copy(_ url: URL, to copy: URL) throws {
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            try FileManager.default.copyItem(atPath: url.path + suffix, toPath: copy.path + suffix)
        }
    }

    /// Every row of `table` with all its columns, as an attacker saves them from a copy of the file.
    package func rows(of table: String) throws -> [[SQLiteValue]] {
        try database.read { db in
            try db.query("SELECT * FROM \(table)") { row in (0..<row.columnCount).map { row.value($0) } }
        }
    }

    /// Replaces every row of `table` with `rows` (saved with ``rows(of:)``), as an attacker puts part
    /// of an old copy back into the current file.
    package func replaceRows(of table: String, with rows: [[SQLiteValue]]) throws {
        try database.write { db in
            try db.run("DELETE FROM \(table)", [])
            for row in rows {
                let marks = Array(repeating: "?", count: row.count).joined(separator: ", ")
                try db.run("INSERT INTO \(table) VALUES (\(marks))", row)
            }
        }
    }

    /// Adds `rows` (saved with ``rows(of:)``) to `table`.
    package func insertRows(into table: String, _ rows: [[SQLiteValue]]) throws {
        try database.write { db in
            for row in rows {
                let marks = Array(repeating: "?", count: row.count).joined(separator: ", ")
                try db.run("INSERT INTO \(table) VALUES (\(marks))", row)
            }
        }
    }

    /// Every entry of the token index: a term's keyed hash and the record filed under it, in
    /// `record_index` or, for a record above the index's mark, in the record's own `terms` column.
    public func indexEntries() throws -> [(term: [UInt8], recordID: [UInt8])] {
        try database.read { db in
            let filed = try db.query("SELECT term, record_id FROM record_index") { [$0.blob(0), $0.blob(1)] }
            let unfiled = try db.query(
                "SELECT record_id, terms FROM records WHERE terms IS NOT NULL "
                    + "AND record_id > (SELECT filed_through FROM record_index_state)"
            ) { row in Self.hashes(in: row.blob(1)).map { [$0, row.blob(0)] } }.flatMap { $0 }
            return Set(filed + unfiled).sorted { ($0[0] + $0[1]).lexicographicallyPrecedes($1[0] + $1[1]) }.map {
                ($0[0], $0[1])
            }
        }
    }

    /// Deletes one index entry, from `record_index` and from its record's `terms` column.
    public func deleteIndexEntry(term: [UInt8], recordID: [UInt8]) throws {
        try execute("DELETE FROM record_index WHERE term = ? AND record_id = ?", .blob(term), .blob(recordID))
        let terms = try database.read { db in
            try db.queryFirst("SELECT terms FROM records WHERE record_id = ?", [.blob(recordID)]) {
                $0.isNull(0) ? nil : $0.blob(0)
            } ?? nil
        }
        guard let terms else { return }
        let kept = Self.hashes(in: terms).filter { $0 != term }.flatMap { $0 }
        try execute("UPDATE records SET terms = ? WHERE record_id = ?", .blob(kept), .blob(recordID))
    }

    private static func hashes(in terms: [UInt8]) -> [[UInt8]] {
        stride(from: 0, to: terms.count - terms.count % 16, by: 16).map { Array(terms[$0..<$0 + 16]) }
    }

    /// The sealed vault-wide digest: the digest row of `records` (format version 5 and later).
    public func sealedDigest() throws -> [UInt8]? {
        try database.read { db in
            try db.queryFirst("SELECT sealed FROM records WHERE record_id = ?", [.blob(SQLiteRecordStore.digestRowID)])
            {
                $0.blob(0)
            }
        }
    }

    /// Replaces the sealed bytes of the digest row.
    public func setSealedDigest(_ sealed: [UInt8]) throws {
        try execute(
            "UPDATE records SET sealed = ? WHERE record_id = ?", .blob(sealed), .blob(SQLiteRecordStore.digestRowID))
    }

    /// Deletes the digest row.
    public func deleteSealedDigest() throws {
        try execute("DELETE FROM records WHERE record_id = ?", .blob(SQLiteRecordStore.digestRowID))
    }

    /// Reads one integer.
    public func integer(_ sql: String) throws -> Int64? {
        try database.read { db in try db.queryFirst(sql) { $0.integer(0) } }
    }

    /// Reads one blob.
    public func blob(_ sql: String) throws -> [UInt8]? {
        try database.read { db in try db.queryFirst(sql) { $0.blob(0) } }
    }

    /// A statement parameter.
    public enum Parameter: Sendable {
        case blob([UInt8])
        case integer(Int64)
        case text(String)

        var value: SQLiteValue {
            switch self {
            case .blob(let bytes): .blob(bytes)
            case .integer(let number): .integer(number)
            case .text(let text): .text(text)
            }
        }
    }
}
