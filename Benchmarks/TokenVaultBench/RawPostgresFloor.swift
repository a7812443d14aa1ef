import Foundation
import VaultCore
import VaultCrypto
import VaultStorage

/// The server's own floor for a store and a get by id on a vault in PostgreSQL: one connection
/// (VaultStorage's `PostgresConnection`, the libpq wrapper the vault's pool holds) to the same
/// server and schema, a table of its own (`id bytea PRIMARY KEY, value bytea`), an autocommit
/// `INSERT` of a random blob of a sealed token record's size, and a `SELECT value` by primary key.
/// One round trip each: no transaction block, no key epoch, no digest, no pool.
final class RawPostgresFloor {
    private let connection: PostgresConnection
    /// The ids inserted so far, in order.
    private(set) var ids: [[UInt8]] = []
    /// The last id handed out.
    private var lastID: [UInt8]?

    /// The table, in the connection's `search_path` schema.
    private static let table = "raw_floor"

    /// Connects and creates the table.
    ///
    /// - Parameter connection: A libpq connection string naming the schema (`search_path`).
    /// - Throws: `PostgresError`.
    init(connection: String) throws {
        self.connection = try PostgresConnection(PostgresConnectionString(connection))
        try self.connection.execute("CREATE TABLE \(Self.table) (id bytea PRIMARY KEY, value bytea NOT NULL)")
    }

    deinit {
        connection.close()
    }

    /// A new row: an id made as the vault makes them (8 bytes of a counter that counts up, then 8
    /// random), so rows land on the index's last page as the vault's do, and `byteCount` random
    /// bytes. Made before the timed insert.
    func row(byteCount: Int) -> (id: [UInt8], value: [UInt8]) {
        let id = UnfiledTerms.recordID(after: lastID)
        lastID = id
        return (id, SecureRandom.bytes(count: byteCount))
    }

    /// Inserts one row (from ``row(byteCount:)``), autocommit: durable on return.
    ///
    /// - Throws: `PostgresError`.
    func insert(_ row: (id: [UInt8], value: [UInt8])) throws {
        try connection.run(
            "INSERT INTO \(Self.table) (id, value) VALUES ($1, $2)", [.bytea(row.id), .bytea(row.value)])
        ids.append(row.id)
    }

    /// Reads one row's value by primary key.
    ///
    /// - Returns: The value's length, so the read cannot be optimised away.
    /// - Throws: `PostgresError`; `CocoaError` when the row is missing.
    @discardableResult
    func select(_ id: [UInt8]) throws -> Int {
        guard let row = try connection.queryFirst("SELECT value FROM \(Self.table) WHERE id = $1", [.bytea(id)]) else {
            throw CocoaError(.fileReadNoSuchFile)
        }
        return try row.bytea(0).count
    }
}
