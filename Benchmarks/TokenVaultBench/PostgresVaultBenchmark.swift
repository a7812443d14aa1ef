import Foundation
import TokenVault
import VaultStorage

/// Section 6: the same single operations on a vault file and on a vault in PostgreSQL, one after
/// the other, each on a vault of its own (key-file unlock): what a fleet pays per operation for
/// sharing its vault through a server. The server is the one `TOKENVAULT_BENCH_POSTGRES` names
/// (a libpq connection string, kept off the command line for its password); the section makes a
/// schema of its own there and drops it at the end.
struct PostgresVaultBenchmark {
    /// What was measured.
    struct Result: Codable, Sendable {
        /// One operation's name and its latency on each backend.
        struct Row: Codable, Sendable {
            let operation: String
            let file: LatencySummary
            let postgres: LatencySummary
        }

        let rows: [Row]
    }

    /// The environment variable with the connection string.
    static let environmentVariable = "TOKENVAULT_BENCH_POSTGRES"

    /// Operations of each kind per backend.
    let operations: Int
    /// Where the vault file goes.
    let directory: URL

    /// Runs the section, or returns `nil` when no server is named.
    func run(progress: (String) -> Void) throws -> Result? {
        guard let connection = ProcessInfo.processInfo.environment[Self.environmentVariable] else { return nil }
        let schema = "tokenvault_bench_\(UInt64.random(in: .min ... .max))"
        let admin = try PostgresConnection(PostgresConnectionString(connection))
        defer { admin.close() }
        try admin.execute("CREATE SCHEMA \(schema)")
        defer { try? admin.execute("DROP SCHEMA \(schema) CASCADE") }

        let keyFile = directory.appendingPathComponent("postgres.key")
        try KeyFile.generate(at: keyFile)
        progress("vault file")
        let file = try measure(
            Vault.create(at: directory.appendingPathComponent("compare.vault"), unlock: .keyFile(keyFile)))
        progress("vault in PostgreSQL")
        let server = try Vault.create(
            postgres: connection + " options='-c search_path=\(schema)'", unlock: .keyFile(keyFile))
        let postgres = try measure(server)
        server.close()
        return Result(
            rows: file.indices.map { Result.Row(operation: file[$0].0, file: file[$0].1, postgres: postgres[$0].1) })
    }

    /// `set` of new items, `get` of them, `update` of one counter, `verify`.
    private func measure(_ vault: Vault) throws -> [(String, LatencySummary)] {
        var sets: [UInt64] = []
        var gets: [UInt64] = []
        var updates: [UInt64] = []
        for index in 0..<operations {
            sets.append(try Stopwatch.time { try vault.set("value \(index)", for: SecretKey<String>("item \(index)")) })
        }
        for index in 0..<operations {
            gets.append(try Stopwatch.time { blackHole(try vault.get(SecretKey<String>("item \(index)"))) })
        }
        for _ in 0..<operations {
            updates.append(try Stopwatch.time { try vault.update(SecretKey<Int>("counter")) { ($0 ?? 0) + 1 } })
        }
        let verify = try Stopwatch.time { blackHole(try vault.verify()) }
        return [
            ("set (a new item, durable)", LatencySummary(sets)), ("get", LatencySummary(gets)),
            ("update (read-modify-write, durable)", LatencySummary(updates)),
            ("verify (\(operations + 1) records)", LatencySummary([verify])),
        ]
    }

    /// The table: p50 and p99 per backend, and the ratio of the p50s.
    static func table(_ result: Result?) -> TextTable {
        var table = TextTable(["operation", "n", "file p50", "file p99", "PostgreSQL p50", "PostgreSQL p99", "ratio"])
        guard let result else {
            table.add(["skipped: set \(environmentVariable) to a libpq connection string", "", "", "", "", "", ""])
            return table
        }
        for row in result.rows {
            table.add([
                row.operation, "\(row.file.count)", Format.duration(nanoseconds: row.file.p50Ns),
                Format.duration(nanoseconds: row.file.p99Ns), Format.duration(nanoseconds: row.postgres.p50Ns),
                Format.duration(nanoseconds: row.postgres.p99Ns),
                Format.ratio(row.file.p50Ns > 0 ? row.postgres.p50Ns / row.file.p50Ns : 0),
            ])
        }
        return table
    }
}
