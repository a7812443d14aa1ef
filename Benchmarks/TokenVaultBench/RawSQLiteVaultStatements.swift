import Foundation
import TokenVault
import VaultCore
import VaultCrypto
import VaultStorage

/// The statements a vault in an SQLite file runs for a durable store, run raw with bytes made
/// before the timed call, in a database of the vault's own schema through the same connection
/// type, and so the same pragmas, as ``RawSQLiteFloor``: what SQLite and the disk take of a store,
/// with none of the library's work (sealing, hashing, the digest, the known state, the
/// `Credential`). Beside that floor, it tells how much of the library's distance from a raw
/// insert the statements themselves take.
///
/// The statements are the vault's own (``SQLiteStatementsForBenchmarking``): one write
/// transaction with the change stamp read, the row with its term hashes, and the rewrite of the
/// digest row.
final class RawSQLiteVaultStatements {
    /// One store's bytes, made before it is timed, or by ``BareTokenStore`` as it is timed.
    struct Store {
        let recordID: [UInt8]
        let lookup: [UInt8]
        let domain: [UInt8]
        let sealed: [UInt8]
        let terms: [[UInt8]]
        let digest: [UInt8]
    }

    private let database: SQLiteDatabase
    /// The rows stored so far.
    private var rowCount = 0
    /// The last record id handed out.
    private var lastID: [UInt8]?

    /// The term hashes a row carries: as many as each fixture token the section stores has.
    private static let termCount = 6
    /// The size of the sealed integrity digest a store rewrites.
    private static let sealedDigestByteCount = 80

    /// Creates the database at `path` (which must not exist) with the vault's schema and its
    /// digest row.
    init(path: String) throws {
        guard try SecureFile.createExclusive(path) else { throw CocoaError(.fileWriteFileExists) }
        database = try SQLiteDatabase(path: path, mode: .readWrite, busyTimeout: .seconds(10))
        try database.enableWriteAheadLog()
        try database.write { db in
            try db.execute(Vault.schemaForBenchmarking)
            try SQLiteStatementsForBenchmarking.addDigestRow(
                on: db, sealed: SecureRandom.bytes(count: Self.sealedDigestByteCount))
        }
    }

    /// Stores rows in one transaction until there are `count`, so the timed stores go into a
    /// table of the vault's size.
    func fill(to count: Int, sealedByteCount: Int) throws {
        guard count > rowCount else { return }
        let sealed = SecureRandom.bytes(count: sealedByteCount)
        try database.write { db in
            for _ in rowCount..<count { try store(nextStore(sealed: sealed), on: db) }
        }
        rowCount = count
    }

    /// The next store's bytes: a row of `sealedByteCount` random bytes with an id above every
    /// stored one, random term hashes and a random digest.
    func nextStore(sealedByteCount: Int) -> Store {
        nextStore(sealed: SecureRandom.bytes(count: sealedByteCount))
    }

    /// Runs one store in its own durable transaction.
    func store(_ store: Store) throws {
        try database.write { db in try self.store(store, on: db) }
        rowCount += 1
    }

    /// An id above every id handed out, as the vault gives a new record.
    func nextRecordID() -> [UInt8] {
        let recordID = UnfiledTerms.recordID(after: lastID)
        lastID = recordID
        return recordID
    }

    private func nextStore(sealed: [UInt8]) -> Store {
        Store(
            recordID: nextRecordID(), lookup: SecureRandom.bytes(count: 32), domain: SecureRandom.bytes(count: 16),
            sealed: sealed,
            terms: (0..<Self.termCount).map { _ in
                SecureRandom.bytes(count: SQLiteStatementsForBenchmarking.termHashByteCount)
            },
            digest: SecureRandom.bytes(count: Self.sealedDigestByteCount))
    }

    private func store(_ store: Store, on db: SQLiteConnection) throws {
        try SQLiteStatementsForBenchmarking.tokenStore(
            on: db, recordID: store.recordID, lookup: store.lookup, domain: store.domain, sealed: store.sealed,
            terms: store.terms, digest: store.digest)
    }
}
