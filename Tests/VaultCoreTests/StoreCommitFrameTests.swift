import Foundation
import TestSupport
import Testing
import TokenVault
import VaultCore
import VaultStorage

/// A durable store costs what its commit writes to the log, page by page: a token store writes no
/// more pages than a raw SQLite insert of a row of the same size into a table of the vault's shape,
/// counted in the `-wal` file itself.
@Suite struct StoreCommitFrameTests {
    let directory = TemporaryDirectory()
    /// Enough commits that the occasional page split does not decide the median.
    static let commits = 41

    static func median(_ values: [Int]) -> Int { values.sorted()[values.count / 2] }

    /// The frames each of ``commits`` token stores committed.
    static func tokenStoreFrames(_ storage: VaultTokenStorage, url: URL, first: Int) throws -> [Int] {
        try (first..<first + commits).map { index in
            let token = TestTokens.token(subject: "user-\(index)@example.com")
            _ = try storage.add(
                token: token, metadata: Token.Metadata(token: token, tags: ["team": "team-\(index % 5)"]), security: [])
            return try WriteAheadLog.framesOfLastCommit(of: url) ?? 0
        }
    }

    /// The frames each of ``commits`` raw inserts committed: ids made as the vault makes them (a
    /// counter, then random bytes), a random look-up tag, and `sealedByteCount` random bytes.
    func rawInsertFrames(sealedByteCount: Int) throws -> [Int] {
        let url = directory.file("raw.db")
        _ = try SecureFile.createExclusive(url.path)
        let database = try SQLiteDatabase(path: url.path, mode: .readWrite, busyTimeout: .seconds(10))
        try database.enableWriteAheadLog()
        try database.write { try $0.execute(Vault.schemaForBenchmarking) }
        var counter = UInt64.random(in: 0..<(1 << 62))
        return try (0..<2 * Self.commits).map { _ in
            counter += 1
            let id = (0..<8).map { UInt8(truncatingIfNeeded: counter >> (56 - 8 * $0)) } + SecureRandom.bytes(count: 8)
            try database.write { db in
                try db.run(
                    "INSERT INTO records (record_id, kind, lookup, domain, policy, version, sealed) "
                        + "VALUES (?, ?, ?, ?, 0, 1, ?)",
                    [
                        .blob(id), .integer(Vault.tokenRecordKindForBenchmarking), .blob(SecureRandom.bytes(count: 32)),
                        .blob(SecureRandom.bytes(count: 16)), .blob(SecureRandom.bytes(count: sealedByteCount)),
                    ])
            }
            return try WriteAheadLog.framesOfLastCommit(of: url) ?? 0
        }.suffix(Self.commits)
    }

    /// The current format keeps the vault-wide digest on the page the new record is written to, so
    /// a store's commit writes as many pages as the raw insert's; the same vault rewritten in the
    /// format version 4 layout (the digest in a table of its own) writes one more.
    @Test func aTokenStoreWritesNoMorePagesThanARawInsertOfTheSameBytes() throws {
        let (vault, url, _) = try TestVaults.keyFileVault(in: directory)
        let storage = try VaultTokenStorage(vault: vault)
        _ = try Self.tokenStoreFrames(storage, url: url, first: 0)  // past the first pages' splits
        let stores = try Self.tokenStoreFrames(storage, url: url, first: Self.commits)
        let tokens = try RawVaultFile(url).records().filter { $0.kind == Vault.tokenRecordKindForBenchmarking }
        let sealedByteCount = tokens.map(\.sealed.count).reduce(0, +) / tokens.count
        let raw = try rawInsertFrames(sealedByteCount: sealedByteCount)
        #expect(stores.allSatisfy { $0 > 0 } && raw.allSatisfy { $0 > 0 })
        #expect(Self.median(stores) <= Self.median(raw), "store frames \(stores), raw insert frames \(raw)")

        try vault.rewriteAsFormatVersion4ForTesting()
        let separateDigest = try Self.tokenStoreFrames(storage, url: url, first: 2 * Self.commits)
        #expect(
            Self.median(separateDigest) == Self.median(stores) + 1,
            "digest in its own table: \(separateDigest), in the records table: \(stores)")
    }
}
