import Foundation
import TokenVault
import VaultCore

/// Section 4: one on-disk vault (key-file unlock, so no key derivation: Argon2id is section 3's)
/// grown to each size in turn, measured at each: durable stores beside raw SQLite inserts of the
/// same sealed size, beside the store's own statements run raw and beside a bare store of the same
/// token (``BareTokenStore``), get by id, the indexed
/// `find(tags:)` and `find(claim:equals:)`, the closure `find(where:)`, `allIDs`, reopen + unlock +
/// first indexed find, revoking an unlock (a key rotation re-sealing every record), bytes on disk
/// per token and peak RSS.
///
/// Growing: all but the last `sampledStores` tokens of each size are written through the bulk
/// hook `VaultTokenStorage.addAllForBenchmarking` (the records `Credential.store` writes, sealed,
/// digested and indexed the same way, ``bulkBatch`` to a transaction: one durable transaction per
/// token would take hours at a million); the last `sampledStores` go through `Credential.store`
/// itself, one durable transaction each, each timed beside one raw SQLite insert, one raw run of
/// the store's statements and one bare store, taking turns at going first.
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
        /// The statements a store runs, run raw with bytes made beforehand (``RawSQLiteVaultStatements``),
        /// durable.
        let rawStoreStatements: LatencySummary
        /// A store of the same tokens doing only the work no store can skip, with none of the
        /// library's layers (``BareTokenStore``), durable.
        let bareStore: LatencySummary
        /// The CPU the benchmark's thread used in each timed store (``Stopwatch/threadCPUNow()``):
        /// the library's work and SQLite's, and the kernel's in their system calls.
        let storeCPU: LatencySummary
        /// The same for each raw insert.
        let rawInsertCPU: LatencySummary
        /// The same for each raw run of the store's statements.
        let rawStoreStatementsCPU: LatencySummary
        /// The same for each bare store.
        let bareStoreCPU: LatencySummary
        /// The bulk hook while growing from the previous size to this one: one sample per token, the
        /// batch's time over its tokens.
        let bulkStore: LatencySummary
        /// `Credential.with(id:)` for ids not loaded before in this process.
        let getByID: LatencySummary
        /// `Credential.find(tags:)` on one tag, one match (the index).
        let findByTag: LatencySummary
        /// `Credential.find(claim: "email", equals:)`, one match (the index).
        let findByClaim: LatencySummary
        /// The first `Credential.find(where:)` on a tag after the stores, one match.
        let findWhereFirst: LatencySummary
        /// `Credential.find(where:)` on a tag after the first, one match: what a metadata cache
        /// would serve.
        let findWhere: LatencySummary
        /// `Credential.find(where:)` on a tag, one match, right after a second vault instance on the
        /// file (standing in for another process) changed one token's tags: the cache lists every
        /// token's version and opens and decodes the changed one.
        let findWhereAfterOtherWrite: LatencySummary
        /// `Credential.allIDs`.
        let allIDs: LatencySummary
        /// `Vault.open` (key file) + `Credential.use` + `Credential.find(tags:)`.
        let reopenAndFirstFind: LatencySummary
        /// `Vault.changeUnlock` between two key files: a key rotation that re-seals every record;
        /// `nil` above ``rekeyLimit`` tokens.
        let rekey: LatencySummary?
        /// The raw floor of a rotation: raw libsodium over every blob and an UPDATE of every row of
        /// the raw SQLite table, in one transaction (``RawSQLiteFloor/rewriteAll()``).
        let rawRewrite: LatencySummary?
        /// Rekey p50 over raw-rewrite p50.
        let rekeyRatio: Double?
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
        /// The raw SQLite table's database + `-wal` + `-shm` per row, blobs of the same size.
        let rawBytesPerRow: Double
        /// RSS of the process after this size's operations.
        let residentBytes: Int
        /// Peak RSS of the process so far (every section run before included).
        let peakResidentBytes: Int

        /// File, log and shared-memory bytes per stored token.
        var bytesPerToken: Double { Double(fileBytes + walBytes + shmBytes) / Double(max(tokens, 1)) }
        /// Bytes on disk per token over the mean sealed token record.
        var diskRatio: Double { meanSealedBytes > 0 ? bytesPerToken / meanSealedBytes : 0 }
        /// The raw store statements' p50 over raw-insert p50: the least ``storeRatio`` could be.
        var storeStatementsRatio: Double {
            rawInsert.p50Ns > 0 ? rawStoreStatements.p50Ns / rawInsert.p50Ns : 0
        }
        /// A store's CPU beyond that of its statements run raw (p50s): the library's work, and what
        /// SQLite takes longer for running after it.
        var storeCPUBeyondStatementsNs: Double { storeCPU.p50Ns - rawStoreStatementsCPU.p50Ns }
        /// The bare store's p50 over raw-insert p50: what a store with no layers would come to.
        var bareStoreRatio: Double { rawInsert.p50Ns > 0 ? bareStore.p50Ns / rawInsert.p50Ns : 0 }
        /// The bare store's CPU beyond that of the statements it ends with (p50s): the work no store
        /// can skip.
        var bareStoreCPUBeyondStatementsNs: Double { bareStoreCPU.p50Ns - rawStoreStatementsCPU.p50Ns }
    }

    /// The sizes, smallest first.
    let sizes: [Int]
    /// How many stores are timed against raw inserts at each size (at most half the size).
    let sampledStores: Int
    /// How many ids `get` reads, and how many indexed finds run, at each size.
    let gets: Int
    /// Where the files go.
    let directory: URL

    /// Tokens per bulk transaction while growing: large enough that the commit is noise, small
    /// enough that a batch of fixtures stays a few tens of MiB.
    static let bulkBatch = 5_000
    /// The largest vault rekeyed: a rotation re-seals every record, twice per size, a page at a
    /// time, so a million tokens (`--full`) are rekeyed too.
    static let rekeyLimit = 1_000_000

    /// How many times `find(where:)` and `allIDs`, which read every record, run at a size: fewer
    /// as each takes longer, once at a million.
    static func scanRepetitions(at size: Int) -> Int { size >= 1_000_000 ? 1 : max(3, min(20, 50_000 / size)) }
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
        let statements = try RawSQLiteVaultStatements(
            path: directory.appendingPathComponent("raw-statements.sqlite").path)
        let bare = try BareTokenStore(path: directory.appendingPathComponent("bare-store.sqlite").path)
        var ids: [String] = []
        ids.reserveCapacity(sizes.last ?? 0)
        var results: [Result] = []
        for size in sizes {
            let sampled = min(sampledStores, size / 2)
            let bulk = try grow(VaultTokenStorage(vault: vault), ids: &ids, to: size - sampled, progress: progress)

            // The last stores: Credential.store beside a raw insert of the same size, the store's
            // statements run raw, and a bare store of the same token.
            progress("vault \(size): stores beside raw SQLite inserts, the store's statements and bare stores")
            let sealedSize = Int(try vault.tokenRecordSizesForBenchmarking().meanSealedByteCount.rounded())
            try raw.fill(to: ids.count, sealedByteCount: sealedSize)
            try statements.fill(to: ids.count, sealedByteCount: sealedSize)
            try bare.fill(to: ids.count, sealedByteCount: sealedSize)
            var (store, storeCPU) = (LatencySamples(), LatencySamples())
            var (rawInsert, rawInsertCPU) = (LatencySamples(), LatencySamples())
            var (rawStatements, rawStatementsCPU) = (LatencySamples(), LatencySamples())
            var (bareStore, bareStoreCPU) = (LatencySamples(), LatencySamples())
            for step in 0..<sampled {
                let index = ids.count
                let token = try TokenFixtures.token(index)
                let tags = TokenFixtures.tags(index)
                let row = RawSQLiteFloor.row(sealedByteCount: sealedSize)
                let pending = statements.nextStore(sealedByteCount: sealedSize)
                try inTurn(
                    step,
                    { try Self.time({ try Credential.store(token, tags: tags) }, into: &store, cpu: &storeCPU) },
                    { try Self.time({ try raw.insertDurably(row) }, into: &rawInsert, cpu: &rawInsertCPU) },
                    {
                        try Self.time({ try statements.store(pending) }, into: &rawStatements, cpu: &rawStatementsCPU)
                    },
                    { try Self.time({ try bare.store(token, tags: tags) }, into: &bareStore, cpu: &bareStoreCPU) })
                ids.append(token.id)
            }
            let liveWALBytes = ResourceUsage.fileBytes(url.path + "-wal")

            // Reads, with no Credential instance loaded.
            progress("vault \(size): get, find(tags:), find(claim:equals:)")
            try Credential.use(vault)
            var getByID = LatencySamples()
            for id in ids.shuffled().prefix(gets) {
                getByID.append(
                    try Stopwatch.time {
                        guard try Credential.with(id: id) != nil else { fatalError("a stored token is missing") }
                    })
            }
            let findByTag = try timed(gets) {
                expectOne(try Credential.find(tags: ["user": TokenFixtures.user(Int.random(in: 0..<ids.count))]))
            }
            let findByClaim = try timed(gets) {
                let email = TokenFixtures.email(Int.random(in: 0..<ids.count))
                expectOne(try Credential.find(claim: "email", equals: email))
            }
            progress("vault \(size): find(where:), allIDs (each reads every record)")
            let findWhereOnce = {
                let user = TokenFixtures.user(Int.random(in: 0..<ids.count))
                expectOne(try Credential.find { $0.tags["user"] == user })
            }
            let findWhereFirst = try timed(1, findWhereOnce)
            let repetitions = Self.scanRepetitions(at: size)
            let findWhere = try timed(repetitions, findWhereOnce)
            let allIDs = try timed(repetitions) {
                guard Credential.allIDs.count == ids.count else { fatalError("allIDs lists the wrong number") }
            }
            let findWhereAfterOtherWrite = try findAfterAnotherWrite(
                url: url, keyFile: keyFile, ids: ids, repetitions: repetitions)

            // Reopen: drop every reference, then open, unlock and find through the index.
            progress("vault \(size): reopen + unlock + first find(tags:)")
            var reopen = LatencySamples()
            for _ in 0..<Self.reopenRepetitions(at: size) {
                Credential.tokenStorage = InMemoryTokenStorage()
                vault = Vault.inMemory()  // the file's vault is released here, closing its connection
                let user = TokenFixtures.user(Int.random(in: 0..<ids.count))
                let start = Stopwatch.now()
                let reopened = try Vault.open(at: url, unlock: .keyFile(keyFile))
                try Credential.use(reopened)
                expectOne(try Credential.find(tags: ["user": user]))
                reopen.append(Stopwatch.now() &- start)
                vault = reopened
            }

            // Revoking an unlock: there and back, so the vault ends on the key file it started with.
            var rekey: LatencySummary?
            var rawRewrite: LatencySummary?
            if size <= Self.rekeyLimit {
                progress("vault \(size): rekey (changeUnlock, every record re-sealed)")
                var samples = LatencySamples()
                for (from, to) in [(keyFile, spareKeyFile), (spareKeyFile, keyFile)] {
                    samples.append(
                        try Stopwatch.time { try vault.changeUnlock(from: .keyFile(from), to: .keyFile(to)) })
                }
                rekey = samples.summary
                rawRewrite = try timed(2) { try raw.rewriteAll() }
            }

            let storeSummary = store.summary
            let rawSummary = rawInsert.summary
            results.append(
                Result(
                    tokens: ids.count, store: storeSummary, rawInsert: rawSummary,
                    storeRatio: rawSummary.p50Ns > 0 ? storeSummary.p50Ns / rawSummary.p50Ns : 0,
                    rawStoreStatements: rawStatements.summary, bareStore: bareStore.summary, storeCPU: storeCPU.summary,
                    rawInsertCPU: rawInsertCPU.summary, rawStoreStatementsCPU: rawStatementsCPU.summary,
                    bareStoreCPU: bareStoreCPU.summary,
                    bulkStore: bulk, getByID: getByID.summary, findByTag: findByTag, findByClaim: findByClaim,
                    findWhereFirst: findWhereFirst, findWhere: findWhere,
                    findWhereAfterOtherWrite: findWhereAfterOtherWrite, allIDs: allIDs,
                    reopenAndFirstFind: reopen.summary, rekey: rekey, rawRewrite: rawRewrite,
                    rekeyRatio: rekey.flatMap { rekey in
                        rawRewrite.map { $0.p50Ns > 0 ? rekey.p50Ns / $0.p50Ns : 0 }
                    },
                    fileBytes: ResourceUsage.fileBytes(url.path),
                    walBytes: ResourceUsage.fileBytes(url.path + "-wal"),
                    shmBytes: ResourceUsage.fileBytes(url.path + "-shm"), liveWALBytes: liveWALBytes,
                    meanSealedBytes: Double(sealedSize), rawBytesPerRow: try raw.bytesOnDiskPerRow(),
                    residentBytes: ResourceUsage.residentBytes(),
                    peakResidentBytes: ResourceUsage.peakResidentBytes()))
        }
        Credential.tokenStorage = InMemoryTokenStorage()
        return results
    }

    /// Stores fixtures through the bulk hook until `ids` holds `count`, ``bulkBatch`` a transaction;
    /// making the fixtures is not timed.
    private func grow(
        _ storage: VaultTokenStorage, ids: inout [String], to count: Int, progress: (String) -> Void
    ) throws -> LatencySummary {
        var bulk = LatencySamples(reservingCapacity: max(count - ids.count, 0))
        let start = Stopwatch.now()
        while ids.count < count {
            let batch = try TokenFixtures.stored(ids.count..<min(ids.count + Self.bulkBatch, count))
            let elapsed = try Stopwatch.time { try storage.addAllForBenchmarking(batch) }
            for _ in batch { bulk.append(elapsed / UInt64(batch.count)) }
            ids.append(contentsOf: batch.map(\.token.id))
            if ids.count % 50_000 == 0 {
                progress(
                    "vault: \(ids.count)/\(count) tokens bulk-stored, "
                        + String(format: "%.0f tokens/s", Double(bulk.count) / Stopwatch.seconds(since: start)))
            }
        }
        return bulk.summary
    }

    /// Times `find(where:)` on a tag right after a second instance on the file rewrote one random
    /// token's tags (unchanged values, a new version); the write itself is not timed.
    private func findAfterAnotherWrite(
        url: URL, keyFile: URL, ids: [String], repetitions: Int
    ) throws -> LatencySummary {
        let writer = try VaultTokenStorage(vault: Vault.open(at: url, unlock: .keyFile(keyFile)))
        defer { writer.vault.close() }
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

    /// Adds how long `body` takes to `wall` and the CPU the thread used in it to `cpu`.
    private static func time(
        _ body: () throws -> Void, into wall: inout LatencySamples, cpu: inout LatencySamples
    ) throws {
        let sample = try Stopwatch.timeWithCPU(body)
        wall.append(sample.wall)
        cpu.append(sample.cpu)
    }

    private func timed(_ repetitions: Int, _ body: () throws -> Void) throws -> LatencySummary {
        var samples = LatencySamples()
        for _ in 0..<repetitions { samples.append(try Stopwatch.time(body)) }
        return samples.summary
    }

    private func expectOne(_ found: [Credential]) {
        guard found.count == 1 else { fatalError("find matched \(found.count) tokens, expected 1") }
    }

    /// What a rekey cell says above ``rekeyLimit`` tokens.
    private static let skippedRekey = "- (over \(Format.count(Double(rekeyLimit))))"

    /// The operations table (one column per size) and the storage table.
    static func tables(_ results: [Result]) -> [TextTable] {
        var operations = TextTable(
            ["operation (p50 / p99)"] + results.map { "\(Format.count(Double($0.tokens))) tokens" })
        let rows: [(String, (Result) -> String)] = [
            ("store: Credential.store, durable", { Format.percentiles($0.store) }),
            ("raw SQLite insert, same sealed size and pragmas", { Format.percentiles($0.rawInsert) }),
            ("store / raw insert (p50)", { Format.ratio($0.storeRatio) }),
            (
                "the store's statements, raw, same pragmas (/ raw insert)",
                { "\(Format.percentiles($0.rawStoreStatements)) (\(Format.ratio($0.storeStatementsRatio)))" }
            ),
            (
                "bare store: the work no store skips, no layers, then the statements (/ raw insert)",
                { "\(Format.percentiles($0.bareStore)) (\(Format.ratio($0.bareStoreRatio)))" }
            ),
            (
                "thread CPU (p50): store / raw insert / the store's statements, raw / bare store",
                {
                    [$0.storeCPU, $0.rawInsertCPU, $0.rawStoreStatementsCPU, $0.bareStoreCPU]
                        .map { Format.duration(nanoseconds: $0.p50Ns) }.joined(separator: " / ")
                }
            ),
            (
                "store / raw insert (mean: with the filing of waiting index terms)",
                { Format.ratio($0.rawInsert.meanNs > 0 ? $0.store.meanNs / $0.rawInsert.meanNs : 0) }
            ),
            ("store, slowest (one that files waiting index terms)", { Format.duration(nanoseconds: $0.store.maxNs) }),
            (
                "bulk store (hook, \(Format.count(Double(bulkBatch)))/transaction), per token",
                {
                    Format.percentiles($0.bulkStore)
                }
            ),
            ("get by id: Credential.with(id:), cold", { Format.percentiles($0.getByID) }),
            ("find(tags:), indexed (1 match)", { Format.percentiles($0.findByTag) }),
            ("find(claim: email, equals:), indexed (1 match)", { Format.percentiles($0.findByClaim) }),
            ("find(where:) on a tag, first call (1 match)", { Format.percentiles($0.findWhereFirst) }),
            ("find(where:) on a tag, later calls (1 match)", { Format.percentiles($0.findWhere) }),
            (
                "find(where:) after another connection changed a token",
                { Format.percentiles($0.findWhereAfterOtherWrite) }
            ),
            ("allIDs", { Format.percentiles($0.allIDs) }),
            ("reopen + unlock (key file, no KDF) + first find(tags:)", { Format.percentiles($0.reopenAndFirstFind) }),
            ("rekey: changeUnlock, every record re-sealed", { $0.rekey.map(Format.percentiles) ?? skippedRekey }),
            (
                "raw floor: libsodium open + seal and UPDATE of every row",
                { $0.rawRewrite.map(Format.percentiles) ?? skippedRekey }
            ),
            ("rekey / raw floor (p50)", { $0.rekeyRatio.map(Format.ratio) ?? skippedRekey }),
        ]
        for (name, cell) in rows { operations.add([name] + results.map(cell)) }

        var storage = TextTable(["storage"] + results.map { "\(Format.count(Double($0.tokens))) tokens" })
        let storageRows: [(String, (Result) -> String)] = [
            (
                "samples: stores / gets / indexed finds / scans / reopens",
                {
                    "\($0.store.count) / \($0.getByID.count) / \($0.findByTag.count) / \($0.findWhere.count) / "
                        + "\($0.reopenAndFirstFind.count)"
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
            (
                "raw SQLite floor on disk per row, same sealed size (/ sealed)",
                { "\(Format.bytes($0.rawBytesPerRow)) (\(Format.ratio($0.rawBytesPerRow / $0.meanSealedBytes)))" }
            ),
            ("-wal while open, after the stores", { Format.bytes(Double($0.liveWALBytes)) }),
            ("RSS after the operations", { Format.bytes(Double($0.residentBytes)) }),
            ("peak RSS (process high-water mark so far)", { Format.bytes(Double($0.peakResidentBytes)) }),
        ]
        for (name, cell) in storageRows { storage.add([name] + results.map(cell)) }
        return [operations, storage]
    }
}
