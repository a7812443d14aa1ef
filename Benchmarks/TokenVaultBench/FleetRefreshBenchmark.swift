import Foundation
import TestSupport
import TokenVault

/// Section 6, part 3: `processes` worker processes refreshing one credential at once, against
/// the local test authorization server (Django OAuth Toolkit, refresh-token rotation and reuse
/// protection on: a replayed refresh token would revoke the family). The credential's access token
/// is stored expiring in 10 s; each worker loads it, waits on the barrier, calls
/// `refreshIfNeeded(graceInterval: 60)` and prints when it had the new token and the token's
/// digest. Single flight across processes should make one `refresh_token` request per rotation,
/// every process should get the same token, and the processes waiting for the one that refreshes
/// should have it as soon as it lands. Each rotation re-expires the stored token first.
struct FleetRefreshBenchmark {
    /// What was measured.
    struct Result: Codable, Sendable {
        /// Worker processes per rotation.
        let processes: Int
        /// One per rotation.
        let rotations: [Rotation]

        /// One rotation.
        struct Rotation: Codable, Sendable {
            /// `refresh_token` grants the server counted.
            let tokenRequests: Int
            /// Distinct access tokens the processes ended with (1: all the same).
            let distinctTokens: Int
            /// Whether every process ended with a token other than the expiring one.
            let allChanged: Bool
            /// From the barrier opening to the earliest process having the new token, in seconds.
            let firstAfterBarrier: Double
            /// Each process's time minus the earliest process's, in seconds, sorted.
            let spreads: [Double]

            /// The latest process's lag behind the earliest, in seconds.
            var maxSpread: Double { spreads.last ?? 0 }
            /// The median lag, in seconds (nearest rank).
            var medianSpread: Double { spreads.isEmpty ? 0 : LatencySummary.percentile(0.5, of: spreads) }
        }
    }

    /// Worker processes per rotation.
    let processes: Int
    /// Rotations.
    let rotations: Int
    /// The vault's schema.
    let connection: String
    /// The key file to create the vault with.
    let keyFile: URL
    /// Where the workers' files go.
    let directory: URL

    /// Starts the authorization server, stores the credential, and runs every rotation.
    ///
    /// - Throws: `AuthorizationServer.SetupFailure` when the server cannot start; ``FleetFailure``.
    func run(progress: (String) -> Void) async throws -> Result {
        let server = try AuthorizationServer(.init(rotateRefreshTokens: true, reuseProtection: true))
        defer { server.stop() }
        let vault = try Vault.create(postgres: connection, unlock: .keyFile(keyFile))
        defer { vault.close() }
        try Credential.use(vault)
        defer { Credential.tokenStorage = InMemoryTokenStorage() }
        let credential = try Credential.store(try await server.passwordToken())

        var results: [Result.Rotation] = []
        for rotation in 0..<rotations {
            progress("fleet: \(processes) processes refreshing one credential, rotation \(rotation + 1)/\(rotations)")
            let storage = Credential.tokenStorage
            guard let stored = try storage.storedToken(id: credential.id, prompt: nil, authenticationContext: nil)
            else { throw FleetFailure("the credential is not stored") }
            _ = try storage.replace(
                token: stored.token.expiring(in: 10), metadata: stored.metadata, expectedVersion: stored.version)
            try await server.resetStats()

            let folder = directory.appendingPathComponent("rotation-\(rotation)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let specs = (0..<processes).map { index in
                FleetWorkerSpec(
                    job: .refresh, connection: connection, keyFile: keyFile.path, index: index, operations: 0,
                    credentialID: credential.id, readyFile: folder.appendingPathComponent("ready-\(index)").path,
                    goFile: folder.appendingPathComponent("go").path)
            }
            var opened = 0.0
            let outputs = try FleetProcesses.run(specs, in: folder) { opened = $0 }.map {
                try JSONDecoder().decode(FleetRefreshOutput.self, from: $0)
            }
            let times = outputs.map(\.gotTokenAt).sorted()
            let earliest = times.first ?? opened
            results.append(
                Result.Rotation(
                    tokenRequests: try await server.tokenRequests("refresh_token"),
                    distinctTokens: Set(outputs.map(\.tokenDigest)).count, allChanged: outputs.allSatisfy(\.changed),
                    firstAfterBarrier: earliest - opened, spreads: times.map { $0 - earliest }))
        }
        return Result(processes: processes, rotations: results)
    }

    /// The table: one row per rotation.
    static func table(_ result: Result) -> TextTable {
        var table = TextTable([
            "\(result.processes) processes refresh at once", "refresh_token requests", "distinct tokens",
            "first token after start", "spread max", "spread p50",
        ])
        for (number, rotation) in result.rotations.enumerated() {
            table.add([
                "rotation \(number + 1)" + (rotation.allChanged ? "" : " (a process kept the old token)"),
                "\(rotation.tokenRequests)", "\(rotation.distinctTokens)",
                Format.duration(nanoseconds: rotation.firstAfterBarrier * 1e9),
                Format.duration(nanoseconds: rotation.maxSpread * 1e9),
                Format.duration(nanoseconds: rotation.medianSpread * 1e9),
            ])
        }
        return table
    }
}
