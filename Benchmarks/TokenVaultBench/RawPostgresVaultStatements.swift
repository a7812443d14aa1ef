import Foundation
import TokenVault
import VaultCore
import VaultCrypto
import VaultStorage

/// The statements a vault in PostgreSQL sends for a durable store and a get by id, sent raw on one
/// connection with bytes made before the timed call: what the server's part of each operation
/// costs, with none of the library's work (sealing, hashing, the digest, the known state, the
/// pool, the `Credential`). Beside ``RawPostgresFloor``, it tells how much of the library's
/// distance from that floor the statements themselves take.
///
/// The statements are the vault's own (``PostgresStatementsForBenchmarking``), on tables of their
/// own: a vault created in a schema of its own, kept open as the measured vault is, whose rows
/// and digest these statements overwrite with random bytes, so it is never read.
final class RawPostgresVaultStatements {
    private let vault: Vault
    private let connection: PostgresConnection
    /// The look-up tags of the rows stored so far, in order.
    private(set) var lookups: [[UInt8]] = []
    /// The header's change counter, which each store's guarded bump moves by one.
    private var changes: Int64
    /// The last record id handed out.
    private var lastID: [UInt8]?

    /// The term hashes a row carries: as many as each fixture token the section stores has (its
    /// `terms` column holds 96 bytes).
    private static let termCount = 6
    /// The size of the sealed integrity digest a store sends with its row.
    private static let sealedDigestByteCount = 80

    /// Creates the vault whose tables the statements go to, and connects.
    ///
    /// - Parameters:
    ///   - connection: A libpq connection string naming an empty schema (`search_path`).
    ///   - keyFile: The key file to create the vault with.
    /// - Throws: `VaultError`, `PostgresError`.
    init(connection: String, keyFile: URL) throws {
        vault = try Vault.create(postgres: connection, unlock: .keyFile(keyFile))
        self.connection = try PostgresConnection(PostgresConnectionString(connection))
        guard let header = try self.connection.queryFirst("SELECT changes FROM vault_header WHERE singleton = 1")
        else { throw CocoaError(.fileReadCorruptFile) }
        changes = try header.int8(0)
    }

    deinit {
        connection.close()
        vault.close()
    }

    /// The next store's pipeline: a new row of `sealedByteCount` random bytes with an id above
    /// every stored one, random term hashes and a random digest. Made before the timed call.
    func nextStore(sealedByteCount: Int) -> [PostgresStatement] {
        let recordID = UnfiledTerms.recordID(after: lastID)
        lastID = recordID
        let lookup = SecureRandom.bytes(count: 32)
        lookups.append(lookup)
        defer { changes += 1 }
        return PostgresStatementsForBenchmarking.tokenStore(
            recordID: recordID, lookup: lookup, domain: SecureRandom.bytes(count: 16),
            sealed: SecureRandom.bytes(count: sealedByteCount),
            terms: (0..<Self.termCount).map { _ in
                SecureRandom.bytes(count: PostgresStatementsForBenchmarking.termHashByteCount)
            },
            digest: SecureRandom.bytes(count: Self.sealedDigestByteCount), changes: changes)
    }

    /// Sends a store's pipeline, committed on return.
    ///
    /// - Throws: `PostgresError`; `CocoaError` when the guarded bump found the counter moved.
    func store(_ statements: [PostgresStatement]) throws {
        guard try connection.pipeline(statements).last?.isEmpty == false else {
            throw CocoaError(.fileWriteUnknown)
        }
    }

    /// The get statement for the row of `lookup` and a tag no row has (as the group directory's
    /// is absent in the section's vault). Made before the timed call.
    func get(_ lookup: [UInt8]) -> PostgresStatement {
        PostgresStatementsForBenchmarking.tokenGet(lookups: [lookup, SecureRandom.bytes(count: 32)])
    }

    /// Runs a get statement.
    ///
    /// - Returns: The sealed size of the row found (column 6, `sealed`), so the read cannot be
    ///   optimised away.
    /// - Throws: `PostgresError`; `CocoaError` when the row is missing.
    @discardableResult
    func read(_ statement: PostgresStatement) throws -> Int {
        let rows = try connection.query(statement.sql, statement.values)
        guard let row = rows.first, !row.isNull(0) else { throw CocoaError(.fileReadNoSuchFile) }
        return try row.bytea(6).count
    }
}
