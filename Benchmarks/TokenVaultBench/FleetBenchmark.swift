import Foundation
import TestSupport
import TokenVault

/// Section 6: a fleet sharing one vault in PostgreSQL. Part 1, single operations beside raw libpq
/// (``FleetOperationsBenchmark``); part 2, processes doing mixed operations on one vault
/// (``FleetLoadBenchmark``); part 3, processes refreshing one credential at once against the local
/// authorization server (``FleetRefreshBenchmark``). Each part has a vault in a schema of its own
/// (``FleetDatabase``); a part whose server is unavailable is skipped with the reason, and the run
/// goes on.
struct FleetBenchmark {
    /// What was measured; a part is `nil` when skipped, with the reason in ``skipped``.
    struct Result: Codable, Sendable {
        /// Where the vaults were.
        var server = ""
        /// Part 1.
        var operations: FleetOperationsBenchmark.Result?
        /// Part 2.
        var load: FleetLoadBenchmark.Result?
        /// Part 3.
        var refresh: FleetRefreshBenchmark.Result?
        /// Why a part was skipped, by part (`operations`, `load`, `refresh`).
        var skipped: [String: String] = [:]
    }

    /// Whether this is a `--quick` run: fewer operations, processes and rotations.
    let quick: Bool
    /// Where key files and the workers' files go.
    let directory: URL

    /// Runs the three parts.
    func run(progress: (String) -> Void) async throws -> Result {
        var result = Result()
        progress("fleet: starting PostgreSQL")
        let database: FleetDatabase
        do {
            database = try FleetDatabase()
        } catch {
            let reason = "no PostgreSQL server: " + Self.oneLine(error)
            result.skipped = ["operations": reason, "load": reason, "refresh": reason]
            return result
        }
        defer { database.dropSchemas() }
        result.server = database.label
        let keyFile = directory.appendingPathComponent("fleet.key")
        try KeyFile.generate(at: keyFile)

        let pinning = CorePinning(server: database.serverProcessID)
        result.server += "; " + pinning.label
        do {
            defer { pinning.release() }
            result.operations = try FleetOperationsBenchmark(
                stores: quick ? 100 : 1_000, gets: quick ? 50 : 500, connection: database.makeVaultSchema(),
                statementsConnection: database.makeVaultSchema(), keyFile: keyFile
            ).run(progress: progress)
        }
        result.load = try FleetLoadBenchmark(
            processes: quick ? 2 : 8, operations: quick ? 100 : 1_000, connection: database.makeVaultSchema(),
            keyFile: keyFile, directory: try folder("load")
        ).run(progress: progress)
        if case .failure(let failure) = AuthorizationServer.setup {
            result.skipped["refresh"] = Self.oneLine(failure)
            return result
        }
        do {
            result.refresh = try await FleetRefreshBenchmark(
                processes: quick ? 4 : 16, rotations: quick ? 1 : 5, connection: database.makeVaultSchema(),
                keyFile: keyFile, directory: try folder("refresh")
            ).run(progress: progress)
        } catch let failure as AuthorizationServer.SetupFailure {
            result.skipped["refresh"] = Self.oneLine(failure)
        }
        return result
    }

    private func folder(_ name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// An error's description on one line (libpq's messages have several), for a table cell.
    private static func oneLine(_ error: any Error) -> String {
        "\(error)".split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: " ")
    }

    /// The section's tables: each part's, or a line saying why it was skipped (one for the whole
    /// section when there was no server).
    static func tables(_ result: Result) -> [TextTable] {
        func skipped(_ part: String, _ heading: String) -> TextTable {
            var table = TextTable([heading], numeric: false)
            table.add(["skipped: \(result.skipped[part] ?? "not run")"])
            return table
        }
        guard !result.server.isEmpty else { return [skipped("operations", "a fleet on PostgreSQL")] }
        var header = TextTable(["server"], numeric: false)
        header.add([result.server])
        return [
            header,
            result.operations.map(FleetOperationsBenchmark.table) ?? skipped("operations", "single operations"),
            result.load.map(FleetLoadBenchmark.table) ?? skipped("load", "processes x mixed operations"),
            result.refresh.map(FleetRefreshBenchmark.table) ?? skipped("refresh", "processes refreshing at once"),
        ]
    }
}
