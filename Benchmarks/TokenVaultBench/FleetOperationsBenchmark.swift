import Foundation
import TokenVault

/// Section 6, part 1: single operations on a vault in PostgreSQL (key-file unlock) beside
/// ``RawPostgresFloor`` on the same server and schema. `Credential.store` of a fixture token
/// (``TokenFixtures``, as the vault section stores) beside an autocommit `INSERT` of a random
/// blob of the vault's mean sealed token-record size; a get by id with no `Credential` instance
/// cached (`Credential.with(id:)` after a fresh `Credential.use`, as the vault section measures
/// it) beside a `SELECT` by primary key; and `Credential.find(tags:)` on one tag (one match).
/// Beside both, the vault's own statements for a store and a get, sent raw
/// (``RawPostgresVaultStatements``): the part of the library's distance from the floor that the
/// server's work on them takes. The library, the floor and the raw statements take turns, round
/// by round, each round starting with the next.
struct FleetOperationsBenchmark {
    /// What was measured.
    struct Result: Codable, Sendable {
        /// `Credential.store`, durable.
        let store: LatencySummary
        /// The raw autocommit insert of the same sealed size.
        let rawInsert: LatencySummary
        /// `Credential.with(id:)`, cold.
        let get: LatencySummary
        /// The raw select by primary key.
        let rawSelect: LatencySummary
        /// The store's own statements (write lock, row, digest, guarded bump with its
        /// notification), sent raw in one pipeline.
        let rawStoreStatements: LatencySummary
        /// The get's own statement (key epoch and rows by look-up tag), sent raw.
        let rawGetStatement: LatencySummary
        /// `Credential.find(tags:)`, one match.
        let findByTag: LatencySummary
        /// The sealed record size the raw rows have.
        let sealedBytes: Int

        /// Store p50 over raw-insert p50.
        var storeRatio: Double { rawInsert.p50Ns > 0 ? store.p50Ns / rawInsert.p50Ns : 0 }
        /// Get p50 over raw-select p50.
        var getRatio: Double { rawSelect.p50Ns > 0 ? get.p50Ns / rawSelect.p50Ns : 0 }
        /// The raw store statements' p50 over raw-insert p50: the least ``storeRatio`` could be.
        var storeStatementsRatio: Double {
            rawInsert.p50Ns > 0 ? rawStoreStatements.p50Ns / rawInsert.p50Ns : 0
        }
        /// The raw get statement's p50 over raw-select p50: the least ``getRatio`` could be.
        var getStatementRatio: Double { rawSelect.p50Ns > 0 ? rawGetStatement.p50Ns / rawSelect.p50Ns : 0 }
        /// `find(tags:)` p50 over raw-select p50.
        var findRatio: Double { rawSelect.p50Ns > 0 ? findByTag.p50Ns / rawSelect.p50Ns : 0 }
    }

    /// Stores (and raw inserts) timed.
    let stores: Int
    /// Gets, raw selects and finds timed (at most `stores`).
    let gets: Int
    /// The vault's schema.
    let connection: String
    /// An empty schema for ``RawPostgresVaultStatements``' tables.
    let statementsConnection: String
    /// The key file to create the vault with.
    let keyFile: URL

    /// Creates the vault and the raw table, and measures.
    func run(progress: (String) -> Void) throws -> Result {
        let vault = try Vault.create(postgres: connection, unlock: .keyFile(keyFile))
        defer { vault.close() }
        try Credential.use(vault)
        defer { Credential.tokenStorage = InMemoryTokenStorage() }
        let raw = try RawPostgresFloor(connection: connection)
        let statements = try RawPostgresVaultStatements(connection: statementsConnection, keyFile: keyFile)

        // The first store sets the default token (a write the others skip) and tells the size.
        try Credential.store(TokenFixtures.token(0), tags: TokenFixtures.tags(0))
        let sealedBytes = Int(try vault.tokenRecordSizesForBenchmarking().meanSealedByteCount.rounded())
        progress("fleet: \(stores) stores beside raw PostgreSQL inserts and the store's statements")
        var store = LatencySamples()
        var rawInsert = LatencySamples()
        var rawStore = LatencySamples()
        var ids: [(id: String, user: Int)] = []
        for step in 1...stores {
            let token = try TokenFixtures.token(step)
            let tags = TokenFixtures.tags(step)
            let row = raw.row(byteCount: sealedBytes)
            let pipeline = statements.nextStore(sealedByteCount: sealedBytes)
            try inTurn(
                step,
                { store.append(try Stopwatch.time { try Credential.store(token, tags: tags) }) },
                { rawInsert.append(try Stopwatch.time { try raw.insert(row) }) },
                { rawStore.append(try Stopwatch.time { try statements.store(pipeline) }) })
            ids.append((token.id, step))
        }

        progress("fleet: \(gets) gets and find(tags:) beside raw selects")
        try Credential.use(vault)  // a new storage: no Credential instance is cached
        var get = LatencySamples()
        var rawSelect = LatencySamples()
        var rawGet = LatencySamples()
        var find = LatencySamples()
        let stored = zip(ids.shuffled(), zip(raw.ids.shuffled(), statements.lookups.shuffled()))
        for (step, (stored, (rawID, lookup))) in stored.prefix(gets).enumerated() {
            let getStatement = statements.get(lookup)
            let getOnce = {
                get.append(
                    try Stopwatch.time {
                        guard try Credential.with(id: stored.id) != nil else {
                            throw FleetFailure("a token is missing")
                        }
                    })
            }
            try inTurn(
                step, getOnce,
                { rawSelect.append(try Stopwatch.time { blackHole(try raw.select(rawID)) }) },
                { rawGet.append(try Stopwatch.time { blackHole(try statements.read(getStatement)) }) })
            let user = TokenFixtures.user(ids.randomElement()!.user)
            find.append(
                try Stopwatch.time {
                    guard try Credential.find(tags: ["user": user]).count == 1 else {
                        throw FleetFailure("find(tags:) did not match one token")
                    }
                })
        }
        return Result(
            store: store.summary, rawInsert: rawInsert.summary, get: get.summary, rawSelect: rawSelect.summary,
            rawStoreStatements: rawStore.summary, rawGetStatement: rawGet.summary, findByTag: find.summary,
            sealedBytes: sealedBytes)
    }

    /// The table: p50 and p99 of each, and library over raw.
    static func table(_ result: Result) -> TextTable {
        var table = TextTable(["vault in PostgreSQL", "n", "p50", "p99", "library / raw (p50)"])
        let rows: [(String, LatencySummary, String)] = [
            ("store: Credential.store, durable", result.store, Format.ratio(result.storeRatio)),
            ("raw INSERT, autocommit, \(Format.bytes(Double(result.sealedBytes))) blob", result.rawInsert, ""),
            (
                "the store's 4 statements, raw, one pipeline", result.rawStoreStatements,
                Format.ratio(result.storeStatementsRatio) + " of the INSERT"
            ),
            ("get by id: Credential.with(id:), cold", result.get, Format.ratio(result.getRatio)),
            ("raw SELECT value by primary key", result.rawSelect, ""),
            (
                "the get's statement, raw", result.rawGetStatement,
                Format.ratio(result.getStatementRatio) + " of the SELECT"
            ),
            ("find(tags:), indexed (1 match)", result.findByTag, Format.ratio(result.findRatio) + " of the SELECT"),
        ]
        for (name, summary, ratio) in rows {
            table.add([
                name, "\(summary.count)", Format.duration(nanoseconds: summary.p50Ns),
                Format.duration(nanoseconds: summary.p99Ns), ratio,
            ])
        }
        return table
    }
}
