import Foundation
import TokenVault

/// Section 6, part 2: `processes` worker processes on one vault in PostgreSQL, each doing
/// `operations` mixed operations (``FleetWorker/MixedOperation``: 40% `vault.set`, 40%
/// `vault.get`, 10% `Credential.store`, 10% token reads by id) as fast as it can, all started at
/// once by the barrier. Throughput is every operation over the wall time from the first one's
/// start to the last one's end; latencies are each operation's, all processes together.
struct FleetLoadBenchmark {
    /// What was measured.
    struct Result: Codable, Sendable {
        /// Worker processes.
        let processes: Int
        /// Operations per process.
        let operationsPerProcess: Int
        /// From the earliest process's first operation to the latest one's last, in seconds.
        let wallSeconds: Double
        /// Every operation, all kinds.
        let all: LatencySummary
        /// By kind (``FleetWorker/MixedOperation``'s raw values), in the cycle's order.
        let byKind: [Kind]

        /// One kind of operation's latencies.
        struct Kind: Codable, Sendable {
            let name: String
            let latency: LatencySummary
        }

        /// Operations per second, all processes together.
        var throughput: Double { wallSeconds > 0 ? Double(all.count) / wallSeconds : 0 }
    }

    /// Worker processes.
    let processes: Int
    /// Operations each.
    let operations: Int
    /// The vault's schema.
    let connection: String
    /// The key file to create the vault with.
    let keyFile: URL
    /// Where the workers' files go.
    let directory: URL

    /// Creates the vault, runs the fleet and gathers what the workers printed.
    func run(progress: (String) -> Void) throws -> Result {
        try Vault.create(postgres: connection, unlock: .keyFile(keyFile)).close()
        progress("fleet: \(processes) processes x \(operations) mixed operations")
        let specs = (0..<processes).map { index in
            FleetWorkerSpec(
                job: .mixed, connection: connection, keyFile: keyFile.path, index: index, operations: operations,
                credentialID: "", readyFile: directory.appendingPathComponent("ready-\(index)").path,
                goFile: directory.appendingPathComponent("go").path)
        }
        let outputs = try FleetProcesses.run(specs, in: directory).map {
            try JSONDecoder().decode(FleetMixedOutput.self, from: $0)
        }
        var all = LatencySamples(reservingCapacity: processes * operations)
        var byKind: [String: LatencySamples] = [:]
        for output in outputs {
            for (kind, samples) in output.latencies {
                for sample in samples {
                    all.append(sample)
                    byKind[kind, default: LatencySamples()].append(sample)
                }
            }
        }
        let start = outputs.map(\.startedAt).min() ?? 0
        let end = outputs.map(\.finishedAt).max() ?? 0
        return Result(
            processes: processes, operationsPerProcess: operations, wallSeconds: end - start, all: all.summary,
            byKind: FleetWorker.MixedOperation.allCases.compactMap { kind in
                byKind[kind.rawValue].map { Result.Kind(name: kind.rawValue, latency: $0.summary) }
            })
    }

    /// The table: throughput, then p50 and p99 of all operations and of each kind.
    static func table(_ result: Result) -> TextTable {
        var table = TextTable([
            "\(result.processes) processes x \(result.operationsPerProcess) mixed", "n", "p50", "p99",
        ])
        table.add([
            "throughput: \(Format.count(result.throughput)) op/s over " + String(format: "%.2f s", result.wallSeconds),
            "\(result.all.count)", "", "",
        ])
        for (name, summary) in [("every operation", result.all)] + result.byKind.map({ ("  " + $0.name, $0.latency) }) {
            table.add([
                name, "\(summary.count)", Format.duration(nanoseconds: summary.p50Ns),
                Format.duration(nanoseconds: summary.p99Ns),
            ])
        }
        return table
    }
}
