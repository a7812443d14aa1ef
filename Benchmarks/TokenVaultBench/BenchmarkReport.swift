import Foundation

/// Everything one run measured, as written to `--json FILE`: the machine, every section that ran
/// (absent when left out with `--only`), and the goals. Times are nanoseconds unless named otherwise.
struct BenchmarkReport: Codable, Sendable {
    /// `full` or `quick`.
    let mode: String
    /// The command line, to reproduce the run.
    let command: String
    /// When the run started.
    let startedAt: Date
    /// How long the whole run took, in seconds.
    var wallSeconds: Double = 0
    /// The machine.
    let machine: Machine
    /// Section 1, by payload size.
    var seal: [SealBenchmark.PayloadResult]?
    /// Section 1, the token record end to end.
    var tokenRecord: TokenRecordBenchmark.Result?
    /// Section 2.
    var scaling: [ScalingBenchmark.Result]?
    /// Section 3, unlocks by Argon2id costs.
    var keyDerivation: [KeyDerivationBenchmark.Result]?
    /// Section 3, `Vault.open` to the first read.
    var vaultOpen: [KeyDerivationBenchmark.OpenResult]?
    /// Section 4, by vault size.
    var vaultOperations: [VaultOperationsBenchmark.Result]?
    /// Section 4's upgrade of a format version 2 vault.
    var formatUpgrade: FormatUpgradeBenchmark.Result?
    /// Section 5.
    var refresh: RefreshCoalescingBenchmark.Result?
    /// Section 6.
    var fleet: FleetBenchmark.Result?
    /// Section 7.
    var idToken: IDTokenValidationBenchmark.Result?
    /// Section 8.
    var cli: CLIBenchmark.Result?
    /// The harness's goals against this run.
    var goals: [Goal] = []

    /// Writes the report as pretty-printed JSON with sorted keys.
    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(self).write(to: url, options: .atomic)
    }
}
