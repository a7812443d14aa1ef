import Foundation
import Synchronization
import TokenVault
import VaultCore
import VaultCrypto
import VaultStorage

/// The container's own floor for a durable store: a raw SQLite insert of one row, of the same size
/// as a sealed token record, into a table of the vault's own shape (the vault's schema, created
/// in this file), through the same connection type and so the same pragmas (WAL,
/// `synchronous=FULL`, `secure_delete`, `cell_size_check`, busy timeout), one transaction per row.
/// No crypto, no integrity digest, no look-ups: what is left is SQLite's and the disk's.
final class RawSQLiteFloor {
    private let database: SQLiteDatabase
    private let path: String
    /// The rows inserted so far.
    private(set) var rowCount = 0

    /// The last record id handed out.
    private static let lastID = Mutex<[UInt8]?>(nil)

    private static let insert =
        "INSERT INTO records (record_id, kind, lookup, domain, policy, version, sealed) VALUES (?, ?, ?, ?, ?, ?, ?)"

    /// Creates the database at `path` (which must not exist) with the vault's schema.
    init(path: String) throws {
        guard try SecureFile.createExclusive(path) else { throw CocoaError(.fileWriteFileExists) }
        self.path = path
        database = try SQLiteDatabase(path: path, mode: .readWrite, busyTimeout: .seconds(10))
        try database.enableWriteAheadLog()
        try database.write { try $0.execute(Vault.schemaForBenchmarking) }
    }

    /// The database + `-wal` + `-shm` per row after a checkpoint (as the vault is measured after
    /// its last connection closed): SQLite's own space for blobs of the vault's size.
    func bytesOnDiskPerRow() throws -> Double {
        _ = try database.checkpoint()
        let bytes = ["", "-wal", "-shm"].reduce(0) { $0 + ResourceUsage.fileBytes(path + $1) }
        return Double(bytes) / Double(max(rowCount, 1))
    }

    /// Adds rows in one transaction until there are `count`: the table grows with the vault it
    /// stands beside, quickly, so the timed inserts go into a table of the same size.
    func fill(to count: Int, sealedByteCount: Int) throws {
        guard count > rowCount else { return }
        let blob = SecureRandom.bytes(count: sealedByteCount)
        try database.write { db in
            for _ in rowCount..<count { try db.run(Self.insert, Self.row(sealed: blob)) }
        }
        rowCount = count
    }

    /// A new row with `sealedByteCount` random bytes, made before the timed insert.
    static func row(sealedByteCount: Int) -> [SQLiteValue] {
        row(sealed: SecureRandom.bytes(count: sealedByteCount))
    }

    /// Inserts one row (from ``row(sealedByteCount:)``) in its own durable transaction.
    func insertDurably(_ row: [SQLiteValue]) throws {
        try database.write { db in try db.run(Self.insert, row) }
        rowCount += 1
    }

    /// Re-encrypts every row in one durable transaction: for each, two raw XChaCha20-Poly1305 passes
    /// over its blob (the work of an open and a seal) and an UPDATE of the blob. The floor under a key
    /// rotation, which does this plus the look-ups, integrity hashes and key derivations.
    func rewriteAll() throws {
        RawSodiumBaseline.ensureInitialized()
        let key = SecureRandom.bytes(count: 32)
        let nonce = SecureRandom.bytes(count: XChaCha20Poly1305.nonceByteCount)
        let associatedData = SecureRandom.bytes(count: 96)
        try database.write { db in
            let rows = try db.query("SELECT record_id, sealed FROM records") { ($0.blob(0), $0.blob(1)) }
            for (id, sealed) in rows {
                var opened = [UInt8](repeating: 0, count: sealed.count + XChaCha20Poly1305.tagByteCount)
                var resealed = [UInt8](repeating: 0, count: opened.count + XChaCha20Poly1305.tagByteCount)
                key.withUnsafeBytes { k in
                    nonce.withUnsafeBytes { n in
                        associatedData.withUnsafeBytes { ad in
                            sealed.withUnsafeBytes { input in
                                opened.withUnsafeMutableBytes {
                                    RawSodiumBaseline.seal(input, key: k, nonce: n, associatedData: ad, into: $0)
                                }
                            }
                            opened.withUnsafeBytes { input in
                                resealed.withUnsafeMutableBytes {
                                    RawSodiumBaseline.seal(input, key: k, nonce: n, associatedData: ad, into: $0)
                                }
                            }
                        }
                    }
                }
                try db.run(
                    "UPDATE records SET sealed = ? WHERE record_id = ?",
                    [.blob(Array(resealed.prefix(sealed.count))), .blob(id)])
            }
        }
    }

    /// A row with ids as the vault writes them: a 16-byte record id that sorts after every earlier
    /// one (a counter, then random bytes), a random 32-byte look-up tag and 16-byte domain.
    private static func row(sealed: [UInt8]) -> [SQLiteValue] {
        let id = lastID.withLock { last in
            let id = UnfiledTerms.recordID(after: last)
            last = id
            return id
        }
        return [
            .blob(id), .integer(Vault.tokenRecordKindForBenchmarking),
            .blob(SecureRandom.bytes(count: 32)), .blob(SecureRandom.bytes(count: 16)), .integer(0), .integer(1),
            .blob(sealed),
        ]
    }
}
