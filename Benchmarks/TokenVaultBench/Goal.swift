import Foundation

/// One of the harness's goals, checked against what this run measured. A goal is never tuned to:
/// when it is missed, the result says so, with the measurement that explains it.
struct Goal: Codable, Sendable {
    /// Whether the goal was met.
    enum Status: String, Codable, Sendable {
        case met
        case missed
        case notMeasured = "not measured"
    }

    /// The goal, in words: the bound and what it applies to.
    let goal: String
    /// What was measured, in words.
    let measured: String
    /// The number checked against ``limit`` (a ratio, or nanoseconds); `nil` when not measured.
    let value: Double?
    /// The goal's bound: met when ``value`` is at most this.
    let limit: Double
    /// Met, missed, or not measured in this run.
    let status: Status
    /// What explains the number.
    let note: String

    /// Checks every goal against a report.
    static func evaluate(_ report: BenchmarkReport) -> [Goal] {
        var goals: [Goal] = []
        if let seal = report.seal {
            goals.append(
                sealGoal(seal, "seal/open within 1.10x of raw libsodium for payloads >= 4 KiB", limit: 1.10) {
                    $0 >= 4096
                })
            goals.append(sealGoal(seal, "seal/open within 1.5x of raw libsodium at 1 KiB", limit: 1.5) { $0 == 1024 })
        }
        if let record = report.tokenRecord {
            goals.append(
                recordGoal(
                    "token record serialize + seal at most 5 µs p50", record.serializeAndSeal.latency.p50Ns,
                    limit: TokenRecordBenchmark.goalNanoseconds,
                    note: "serialize alone \(Format.duration(nanoseconds: record.serializeOnly.latency.p50Ns)), "
                        + "seal alone \(Format.duration(nanoseconds: record.sealOnly.latency.p50Ns)) "
                        + "(raw \(Format.duration(nanoseconds: record.rawSeal.latency.p50Ns))) "
                        + "for \(Format.bytes(Double(record.sealedBytes))) sealed; legacy JSON "
                        + Format.duration(nanoseconds: record.legacySerializeAndSeal.latency.p50Ns)))
            let claimParse = max(
                0, record.decodeMetadataAndReadClaim.latency.p50Ns - record.decodeMetadataOnly.latency.p50Ns)
            goals.append(
                recordGoal(
                    "token record open + decode at most 5 µs p50", record.openAndDecode.latency.p50Ns,
                    limit: TokenRecordBenchmark.goalNanoseconds,
                    note: "open alone \(Format.duration(nanoseconds: record.openOnly.latency.p50Ns)), "
                        + "decode alone \(Format.duration(nanoseconds: record.decodeOnly.latency.p50Ns)) "
                        + "(claims parsed on first read: +\(Format.duration(nanoseconds: claimParse))); "
                        + "legacy JSON \(Format.duration(nanoseconds: record.legacyOpenAndDecode.latency.p50Ns))"))
        }
        if let vault = report.vaultOperations { goals += vaultGoals(vault) }
        if let fleet = report.fleet { goals += fleetGoals(fleet) }
        if let idToken = report.idToken { goals.append(IDTokenValidationBenchmark.goal(idToken)) }
        if let cli = report.cli { goals += CLIBenchmark.goals(cli) }
        return goals
    }

    /// The fleet section's goals: store and get beside raw libpq, and the cross-process refresh
    /// (one request per rotation, every process within 50 ms of the first); none for a part skipped.
    private static func fleetGoals(_ fleet: FleetBenchmark.Result) -> [Goal] {
        var goals: [Goal] = []
        if let operations = fleet.operations {
            /// A library operation against its raw libpq floor, p50 to p50, with what the vault's own
            /// statements, sent raw, take of the same floor: the least the library's ratio could be.
            func floorGoal(
                _ goal: String, _ ratio: Double, limit: Double, _ library: LatencySummary, _ raw: LatencySummary,
                statementsRatio: Double
            ) -> Goal {
                Goal(
                    goal: goal, measured: Format.ratio(ratio), value: ratio, limit: limit,
                    status: ratio <= limit ? .met : .missed,
                    note: "p50 \(Format.duration(nanoseconds: library.p50Ns)) vs "
                        + Format.duration(nanoseconds: raw.p50Ns)
                        + "; the vault's own statements, sent raw: \(Format.ratio(statementsRatio))")
            }
            goals.append(
                floorGoal(
                    "store on PostgreSQL at most 1.3x a raw libpq INSERT of the same sealed bytes",
                    operations.storeRatio, limit: 1.3, operations.store, operations.rawInsert,
                    statementsRatio: operations.storeStatementsRatio))
            goals.append(
                floorGoal(
                    "get by id on PostgreSQL at most 1.2x a raw libpq SELECT by primary key",
                    operations.getRatio, limit: 1.2, operations.get, operations.rawSelect,
                    statementsRatio: operations.getStatementRatio))
        }
        if let refresh = fleet.refresh, !refresh.rotations.isEmpty {
            let requests = refresh.rotations.map(\.tokenRequests)
            let sameToken = refresh.rotations.allSatisfy { $0.distinctTokens == 1 && $0.allChanged }
            goals.append(
                Goal(
                    goal: "\(refresh.processes) processes refreshing at once make exactly 1 token request per rotation",
                    measured: requests.map(String.init).joined(separator: ", "),
                    value: Double(requests.max() ?? 0), limit: 1,
                    status: requests.allSatisfy { $0 == 1 } ? .met : .missed,
                    note: sameToken
                        ? "every process got the same new token"
                        : "NOT every process got the same new token"))
            let spread = refresh.rotations.map(\.maxSpread).max() ?? 0
            goals.append(
                Goal(
                    goal: "\(refresh.processes) processes have the new token within 50 ms of the first",
                    measured: "worst \(Format.duration(nanoseconds: spread * 1e9))", value: spread, limit: 0.05,
                    status: spread <= 0.05 ? .met : .missed,
                    note: "spread max per rotation: "
                        + refresh.rotations.map { Format.duration(nanoseconds: $0.maxSpread * 1e9) }.joined(
                            separator: ", ")))
        }
        return goals
    }

    /// A goal on a ratio measured at every vault size, judged at the worst size (none when no size
    /// was measured); `note` describes that worst size.
    private static func ratioGoal(
        _ vault: [VaultOperationsBenchmark.Result], _ goal: String,
        ratio: KeyPath<VaultOperationsBenchmark.Result, Double>, limit: Double,
        note: (VaultOperationsBenchmark.Result) -> String
    ) -> [Goal] {
        guard let worst = vault.max(by: { $0[keyPath: ratio] < $1[keyPath: ratio] }) else { return [] }
        return [
            Goal(
                goal: goal,
                measured: vault.map { "\(Format.ratio($0[keyPath: ratio])) at \(Format.count(Double($0.tokens)))" }
                    .joined(separator: ", "),
                value: worst[keyPath: ratio], limit: limit,
                status: worst[keyPath: ratio] <= limit ? .met : .missed, note: note(worst))
        ]
    }

    /// A token record goal: one p50 latency against its limit.
    private static func recordGoal(_ goal: String, _ p50: Double, limit: Double, note: String) -> Goal {
        Goal(
            goal: goal, measured: Format.duration(nanoseconds: p50), value: p50, limit: limit,
            status: p50 <= limit ? .met : .missed, note: note)
    }

    /// The vault section's goals: latencies at one size (p50), ratios at the worst size.
    private static func vaultGoals(_ vault: [VaultOperationsBenchmark.Result]) -> [Goal] {
        var goals = [
            latencyGoal(vault, "find(tags:) over 100k tokens at most 2 ms p50", tokens: 100_000, limit: 2e6) {
                ($0.findByTag, "find(claim: email, equals:) \(Format.duration(nanoseconds: $0.findByClaim.p50Ns))")
            },
            latencyGoal(vault, "find(tags:) over 1M tokens at most 5 ms p50", tokens: 1_000_000, limit: 5e6) {
                ($0.findByTag, "find(claim: email, equals:) \(Format.duration(nanoseconds: $0.findByClaim.p50Ns))")
            },
            latencyGoal(vault, "find(where:) over 100k tokens, cached, at most 30 ms p50", tokens: 100_000, limit: 3e7)
            {
                (
                    $0.findWhere,
                    "calls after the first; first call \(Format.duration(nanoseconds: $0.findWhereFirst.p50Ns)), "
                        + "\(Format.duration(nanoseconds: $0.findWhere.p50Ns / Double($0.tokens))) per stored token"
                )
            },
            latencyGoal(vault, "allIDs over 100k tokens at most 10 ms p50", tokens: 100_000, limit: 1e7) {
                ($0.allIDs, "\(Format.duration(nanoseconds: $0.allIDs.p50Ns / Double($0.tokens))) per stored token")
            },
            latencyGoal(
                vault, "reopen + unlock + first find(tags:) at 100k tokens at most 1 s beyond the KDF",
                tokens: 100_000, limit: 1e9
            ) { ($0.reopenAndFirstFind, "key-file unlock: no key derivation in the figure") },
        ]
        goals += ratioGoal(
            vault, "durable store at most 1.3x the raw SQLite insert of the same sealed bytes", ratio: \.storeRatio,
            limit: 1.3
        ) { worst in
            "p50 \(Format.duration(nanoseconds: worst.store.p50Ns)) vs "
                + "\(Format.duration(nanoseconds: worst.rawInsert.p50Ns)) at \(Format.count(Double(worst.tokens))) tokens; "
                + "the vault's own statements, run raw: \(Format.ratio(worst.storeStatementsRatio)); "
                + "a store's thread CPU beyond theirs: \(Format.duration(nanoseconds: worst.storeCPUBeyondStatementsNs)); "
                + "a bare store (no layers): \(Format.ratio(worst.bareStoreRatio)), "
                + "\(Format.duration(nanoseconds: worst.bareStoreCPUBeyondStatementsNs)) of CPU beyond the statements"
        }
        goals += ratioGoal(
            vault, "bytes on disk per token (file + -wal + -shm) at most 1.5x its sealed payload", ratio: \.diskRatio,
            limit: 1.5
        ) { worst in
            "\(Format.bytes(worst.bytesPerToken)) per token of "
                + "\(Format.bytes(worst.meanSealedBytes)) sealed at \(Format.count(Double(worst.tokens))) "
                + "(raw SQLite floor \(Format.ratio(worst.rawBytesPerRow / worst.meanSealedBytes))); "
                + "-wal \(Format.bytes(Double(worst.walBytes))) at the end, "
                + "\(Format.bytes(Double(worst.liveWALBytes))) while open after the stores"
        }
        return goals
    }

    /// A p50 goal at one vault size: not measured when the run had no vault of that size.
    private static func latencyGoal(
        _ vault: [VaultOperationsBenchmark.Result], _ goal: String, tokens: Int, limit: Double,
        _ measure: (VaultOperationsBenchmark.Result) -> (LatencySummary, String)
    ) -> Goal {
        guard let result = vault.first(where: { $0.tokens == tokens }) else {
            return Goal(
                goal: goal, measured: "-", value: nil, limit: limit, status: .notMeasured,
                note: "largest vault in this run: \(Format.count(Double(vault.map(\.tokens).max() ?? 0))) tokens"
                    + (tokens > 100_000 ? " (1M needs --full)" : ""))
        }
        let (summary, note) = measure(result)
        return Goal(
            goal: goal, measured: Format.duration(nanoseconds: summary.p50Ns), value: summary.p50Ns, limit: limit,
            status: summary.p50Ns <= limit ? .met : .missed, note: note + " (\(summary.count) samples)")
    }

    private static func sealGoal(
        _ results: [SealBenchmark.PayloadResult], _ goal: String, limit: Double, sizes: (Int) -> Bool
    ) -> Goal {
        let chosen = results.filter { sizes($0.payloadBytes) }
        guard !chosen.isEmpty else {
            return Goal(goal: goal, measured: "-", value: nil, limit: limit, status: .notMeasured, note: "")
        }
        let seal = chosen.map(\.sealRatio.median).max() ?? 0
        let open = chosen.map(\.openRatio.median).max() ?? 0
        return Goal(
            goal: goal, measured: "worst seal \(Format.ratio(seal)), worst open \(Format.ratio(open))",
            value: max(seal, open), limit: limit, status: max(seal, open) <= limit ? .met : .missed,
            note: "median of per-round p50 ratios over "
                + chosen.map { Format.payload($0.payloadBytes) }.joined(separator: ", "))
    }

    /// The goals table.
    static func table(_ goals: [Goal]) -> TextTable {
        var table = TextTable(["goal", "measured", "status", "note"], numeric: false)
        for goal in goals { table.add([goal.goal, goal.measured, goal.status.rawValue, goal.note]) }
        return table
    }
}
