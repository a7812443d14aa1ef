import Foundation
import TokenVault
import VaultCore

/// Section 4: one on-disk vault (key-file unlock: Argon2id is section 3's) grown through the
/// public API to each size in turn, measured at each: durable stores beside raw SQLite inserts of
/// the same size, get by id, `find` by tag and by ID-token claim, `find` right after another
/// connection changed one token (what keeping the unlock's metadata cache coherent costs),
/// `allIDs`, reopen + unlock + first `find`, revoking an unlock (a key rotation re-sealing every record), file size per record
/// and peak RSS.
///
/// Growing: all but the last `sampledStores` tokens of each size are stored one by one with
/// `VaultTokenStorage.add` (the public call `Credential.store` makes, one durable transaction
/// each, without registering a `Credential` instance per token); the last `sampledStores` go
/// through `Credential.store` itself, each timed beside one raw SQLite insert, alternating which
/// goes first. The public API has no batch insert, so this is the fastest way it allows.
struct VaultOperationsBenchmark {
    /// What was measured at one size.
    struct Result: Codable, Sendable {
        /// The tokens stored.
        let tokens: Int
        /// `Credential.store`, durable, the last stores before reaching the size.
        let store: LatencySummary
        /// A raw SQLite insert of a blob of the mean sealed-record size, same pragmas, durable.
        let rawInsert: LatencySummary
        /// Store p50 over raw-insert p50.
        let storeRatio: Double
        /// `VaultTokenStorage.add` while growing from the previous size to this one.
        let bulkStore: LatencySummary
        /// `Credential.with(id:)` for ids not loaded before in this process.
        let getByID: LatencySummary
        /// `Credential.find` on a tag, one match.
        let findByTag: LatencySummary
        /// `Credential.find` on the ID token's `email` claim, one match.
        let findByClaim: LatencySummary
        /// `Credential.find` on a tag, one match, right after a second vault instance on the file
        /// (standing in for another process) changed one token's tags: the cache lists every
        /// token's version and opens and decodes the changed one.
        let findAfterOtherWrite: LatencySummary
        /// `Credential.allIDs`.
        let allIDs: LatencySummary
        /// `Vault.open` (key file) + `Credential.use` + `Credential.find` on a tag.
        let reopenAndFirstFind: LatencySummary
        /// `Vault.changeUnlock` between two key files: a key rotation that re-seals every record.
        let rekey: LatencySummary
        /// The raw floor of a rotation: raw libsodium over every blob and an UPDATE of every row of
        /// the raw SQLite table, in one transaction (``RawSQLiteFloor/rewriteAll()``).
        let rawRewrite: LatencySummary
        /// Rekey p50 over raw-rewrite p50.
        let rekeyRatio: Double
        /// The vault file.
        let fileBytes: Int
        /// Its write-ahead log.
        let walBytes: Int
        /// Its shared-memory index (`-shm`), there while a connection has the file open.
        let shmBytes: Int
        /// The write-ahead log while the vault was open, right after the stores.
        let liveWALBytes: Int
        /// The mean sealed token record.
        let meanSealedBytes: Double
        /// RSS of the process after this size's operations.
        let residentBytes: Int
        /// Peak RSS of the process so far (every section run before included).
        let peakResidentBytes: Int

        /// File, log and shared-memory bytes per stored token.
        var bytesPerToken: Double { Double(fileBytes + walBytes + shmBytes) / Double(max(tokens, 1)) }
        /// Bytes on disk per token over the mean sealed token record.
        var diskRatio: Double { meanSealedBytes > 0 ? bytesPerToken / meanSealedBytes : 0 }
    }

    /// The sizes, smallest first.
    let sizes: [Int]
    /// How many stores are timed against raw inserts at each size (at most half the size).
    let sampledStores: Int
    /// How many ids `get` reads at each size.
    let gets: Int
    /// Where the files go.
    let directory: URL

    /// How many times `find` and `allIDs` run at a size: fewer as each takes longer.
    static func findRepetitions(at size: Int) -> Int { max(3, min(20, 50_000 / size)) }
    /// How many reopens at a size.
    static func reopenRepetitions(at size: Int) -> Int { max(2, min(10, 20_000 / size)) }

    /// Grows the vault through every size and measures at each.
    func run(progress: (String) -> Void) throws -> [Result] {
        let keyFile = directory.appendingPathComponent("tokens.key")
        try KeyFile.generate(at: keyFile)
        let spareKeyFile = directory.appendingPathComponent("tokens-next.key")
        try KeyFile.generate(at: spareKeyFile)
        let url = directory.appendingPathComponent("tokens.vault")
        var vault = try Vault.create(at: url, unlock: .keyFile(keyFile))
        try Credential.use(vault)
        let raw = try RawSQLiteFloor(path: directory.appendingPathComponent("raw-floor.sqlite").path)
        var ids: [String] = []
        ids.reserveCapacity(sizes.last ?? 0)
        var results: [Result] = []
        for size in sizes {
            // Grow with VaultTokenStorage.add up to the sampled window.
            let storage = try VaultTokenStorage(vault: vault)
            let sampled = min(sampledStores, size / 2)
            var bulk = LatencySamples(reservingCapacity: size)
            let growStart = Stopwatch.now()
            while ids.count < size - sampled {
                let index = ids.count
                let token = try TokenFixtures.token(index)
                let metadata = Token.Metadata(token: token, tags: TokenFixtures.tags(index))
                bulk.append(
                    try Stopwatch.time {
                        _ = try storage.add(token: token, metadata: metadata, security: Credential.Security.standard)
                    })
                ids.append(token.id)
                if ids.count % 5_000 == 0 {
                    progress(
                        "vault: \(ids.count)/\(size) tokens stored, "
                            + String(format: "%.0f op/s", Double(bulk.count) / Stopwatch.seconds(since: growStart)))
                }
            }

            // The last stores: Credential.store beside a raw insert of the same size.
            progress("vault \(size): stores beside raw SQLite inserts")
            let sealedSize = Int(try vault.tokenRecordSizesForBenchmarking().meanSealedByteCount.rounded())
            try raw.fill(to: ids.count, sealedByteCount: sealedSize)
            var store = LatencySamples()
            var rawInsert = LatencySamples()
            for step in 0..<sampled {
                let index = ids.count
                let token = try TokenFixtures.token(index)
                let tags = TokenFixtures.tags(index)
                let row = RawSQLiteFloor.row(sealedByteCount: sealedSize)
                let storeOnce = { store.append(try Stopwatch.time { try Credential.store(token, tags: tags) }) }
                let insertOnce = { rawInsert.append(try Stopwatch.time { try raw.insertDurably(row) }) }
                if step % 2 == 0 {
                    try storeOnce()
                    try insertOnce()
                } else {
                    try insertOnce()
                    try storeOnce()
                }
                ids.append(token.id)
            }
            let liveWALBytes = ResourceUsage.fileBytes(url.path + "-wal")

            // Reads, with no Credential instance loaded.
            progress("vault \(size): get, find, allIDs")
            try Credential.use(vault)
            var getByID = LatencySamples()
            for id in ids.shuffled().prefix(gets) {
                getByID.append(
                    try Stopwatch.time {
                        guard try Credential.with(id: id) != nil else { fatalError("a stored token is missing") }
                    })
            }
            let repetitions = Self.findRepetitions(at: size)
            let findByTag = try timed(repetitions) {
                let user = TokenFixtures.user(Int.random(in: 0..<ids.count))
                expectOne(try Credential.find { $0.tags["user"] == user })
            }
            let findByClaim = try timed(repetitions) {
                let email = TokenFixtures.email(Int.random(in: 0..<ids.count))
                expectOne(try Credential.find { $0.email == email })
            }
            let allIDs = try timed(repetitions) {
                guard Credential.allIDs.count == ids.count else { fatalError("allIDs lists the wrong number") }
            }
            let findAfterOtherWrite = try findAfterAnotherWrite(
                url: url, keyFile: keyFile, ids: ids, repetitions: repetitions)

            // Reopen: drop every reference, then open, unlock and find.
            progress("vault \(size): reopen + unlock + first find")
            var reopen = LatencySamples()
            for _ in 0..<Self.reopenRepetitions(at: size) {
                Credential.tokenStorage = InMemoryTokenStorage()
                vault = Vault.inMemory()  // the file's vault is released here, closing its connection
                let user = TokenFixtures.user(Int.random(in: 0..<ids.count))
                let start = Stopwatch.now()
                let reopened = try Vault.open(at: url, unlock: .keyFile(keyFile))
                try Credential.use(reopened)
                expectOne(try Credential.find { $0.tags["user"] == user })
                reopen.append(Stopwatch.now() &- start)
                vault = reopened
            }

            // Revoking an unlock: there and back, so the vault ends on the key file it started with.
            progress("vault \(size): rekey (changeUnlock, every record re-sealed)")
            var rekey = LatencySamples()
            for (from, to) in [(keyFile, spareKeyFile), (spareKeyFile, keyFile)] {
                rekey.append(try Stopwatch.time { try vault.changeUnlock(from: .keyFile(from), to: .keyFile(to)) })
            }
            let rawRewrite = try timed(2) { try raw.rewriteAll() }
            let rekeySummary = rekey.summary

            let storeSummary = store.summary
            let rawSummary = rawInsert.summary
            results.append(
                Result(
                    tokens: ids.count, store: storeSummary, rawInsert: rawSummary,
                    storeRatio: rawSummary.p50Ns > 0 ? storeSummary.p50Ns / rawSummary.p50Ns : 0,
                    bulkStore: bulk.summary, getByID: getByID.summary, findByTag: findByTag, findByClaim: findByClaim,
                    findAfterOtherWrite: findAfterOtherWrite, allIDs: allIDs, reopenAndFirstFind: reopen.summary,
                    rekey: rekeySummary, rawRewrite: rawRewrite,
                    rekeyRatio: rawRewrite.p50Ns > 0 ? rekeySummary.p50Ns / rawRewrite.p50Ns : 0,
                    fileBytes: ResourceUsage.fileBytes(url.path),
                    walBytes: ResourceUsage.fileBytes(url.path + "-wal"),
                    shmBytes: ResourceUsage.fileBytes(url.path + "-shm"), liveWALBytes: liveWALBytes,
                    meanSealedBytes: Double(sealedSize),
                    residentBytes: ResourceUsage.residentBytes(),
                    peakResidentBytes: ResourceUsage.peakResidentBytes()))
        }
        Credential.tokenStorage = InMemoryTokenStorage()
        return results
    }

    /// Times `find` by tag right after a second instance on the file rewrote one random token's
    /// tags (unchanged values, a new version); the write itself is not timed.
    private func findAfterAnotherWrite(
        url: URL, keyFile: URL, ids: [String], repetitions: Int
    ) throws -> LatencySummary {
        let writer = try VaultTokenStorage(vault: Vault.open(at: url, unlock: .keyFile(keyFile)))
        var samples = LatencySamples()
        for _ in 0..<repetitions {
            let index = Int.random(in: 0..<ids.count)
            guard let stored = try writer.storedMetadata(id: ids[index]) else {
                fatalError("a stored token is missing")
            }
            _ = try writer.setMetadata(stored.metadata, expectedVersion: stored.version)
            let user = TokenFixtures.user(Int.random(in: 0..<ids.count))
            samples.append(try Stopwatch.time { expectOne(try Credential.find { $0.tags["user"] == user }) })
        }
        return samples.summary
    }

    private func timed(_ repetitions: Int, _ body: () throws -> Void) throws -> LatencySummary {
        var samples = LatencySamples()
        for _ in 0..<repetitions { samples.append(try Stopwatch.time(body)) }
        return samples.summary
    }

    private func expectOne(_ found: [Credential]) {
        guard found.count == 1 else { fatalError("find matched \(found.count) tokens, expected 1") }
    }

    /// The operations table (one column per size) and the storage table.
    static func tables(_ results: [Result]) -> [TextTable] {
        var operations = TextTable(
            ["operation (p50 / p99)"] + results.map { "\(Format.count(Double($0.tokens))) tokens" })
        let rows: [(String, (Result) -> String)] = [
            ("store: Credential.store, durable", { Format.percentiles($0.store) }),
            ("raw SQLite insert, same size and pragmas", { Format.percentiles($0.rawInsert) }),
            ("store / raw insert (p50)", { Format.ratio($0.storeRatio) }),
            ("bulk store: VaultTokenStorage.add", { Format.percentiles($0.bulkStore) }),
            ("get by id: Credential.with(id:), cold", { Format.percentiles($0.getByID) }),
            ("find by tag (1 match)", { Format.percentiles($0.findByTag) }),
            ("find by claim email (1 match)", { Format.percentiles($0.findByClaim) }),
            ("find by tag after another connection changed a token", { Format.percentiles($0.findAfterOtherWrite) }),
            ("allIDs", { Format.percentiles($0.allIDs) }),
            ("reopen + unlock (key file) + first find", { Format.percentiles($0.reopenAndFirstFind) }),
            ("rekey: changeUnlock, every record re-sealed", { Format.percentiles($0.rekey) }),
            ("raw floor: libsodium open + seal and UPDATE of every row", { Format.percentiles($0.rawRewrite) }),
            ("rekey / raw floor (p50)", { Format.ratio($0.rekeyRatio) }),
        ]
        for (name, cell) in rows { operations.add([name] + results.map(cell)) }

        var storage = TextTable(["storage"] + results.map { "\(Format.count(Double($0.tokens))) tokens" })
        let storageRows: [(String, (Result) -> String)] = [
            (
                "samples: stores / gets / finds / reopens",
                {
                    "\($0.store.count) / \($0.getByID.count) / \($0.findByTag.count) / \($0.reopenAndFirstFind.count)"
                }
            ),
            ("mean sealed record (sealed payload)", { Format.bytes($0.meanSealedBytes) }),
            (
                "vault file + -wal + -shm",
                {
                    "\(Format.bytes(Double($0.fileBytes))) + \(Format.bytes(Double($0.walBytes))) + "
                        + Format.bytes(Double($0.shmBytes))
                }
            ),
            ("bytes on disk per token (file + -wal + -shm)", { Format.bytes($0.bytesPerToken) }),
            ("bytes on disk per token / sealed payload", { Format.ratio($0.diskRatio) }),
            ("-wal while open, after the stores", { Format.bytes(Double($0.liveWALBytes)) }),
            ("RSS after the operations", { Format.bytes(Double($0.residentBytes)) }),
            ("peak RSS (process high-water mark so far)", { Format.bytes(Double($0.peakResidentBytes)) }),
        ]
        for (name, cell) in storageRows { storage.add([name] + results.map(cell)) }
        return [operations, storage]
    }
}
