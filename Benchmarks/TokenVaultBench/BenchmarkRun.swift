import Foundation

/// One run of the harness: sets up the files' folder, describes the machine, runs the chosen
/// sections in ``BenchSection/runOrder`` printing each one's tables as it finishes, then the goals,
/// and writes the JSON report and chart when asked.
struct BenchmarkRun {
    /// The command line.
    let options: BenchOptions

    /// Runs everything.
    func run() async throws {
        // Before any section can make `URLSession.shared` (storing a credential does): a session
        // takes its protocol classes when it is made, so a later registration would not reach it.
        StubTokenEndpoint.register()
        let started = Stopwatch.now()
        let directory = try options.makeRunDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let machine = Machine.current(directory: directory.path)
        var report = BenchmarkReport(
            mode: options.quick ? "quick" : "full", command: CommandLine.arguments.joined(separator: " "),
            startedAt: Date(), machine: machine)

        print("# tokenvault-bench (\(report.mode) run)\n")
        for line in machine.lines { print("- " + line) }
        print(
            "- Latencies are p50 / p99 (nearest rank) of single operations; op/s is back-to-back throughput "
                + "(median over rounds); ratios are library / floor, p50 to p50.")

        let quick = options.quick
        let sampler =
            quick
            ? Sampler(rounds: 3, secondsPerRound: 0.012, warmUpSeconds: 0.01)
            : Sampler(rounds: 7, secondsPerRound: 0.05, warmUpSeconds: 0.05)
        for section in BenchSection.runOrder where options.sections.contains(section) {
            let sectionStart = Stopwatch.now()
            var tables: [TextTable] = []
            switch section {
            case .seal:
                let seal = try SealBenchmark(sampler: sampler).run(progress: progress)
                progress("token record")
                let record = try TokenRecordBenchmark(sampler: sampler).run()
                report.seal = seal
                report.tokenRecord = record
                tables = SealBenchmark.tables(seal) + [TokenRecordBenchmark.table(record)]
            case .scaling:
                let scaling = try ScalingBenchmark(
                    maximumThreads: max(machine.activeCores, 1), secondsPerPoint: quick ? 0.08 : 0.3,
                    repetitions: quick ? 1 : 3
                ).run(progress: progress)
                report.scaling = scaling
                tables = [ScalingBenchmark.table(scaling)]
            case .vault:
                let sizes = quick ? [1_000] : [1_000, 10_000, 100_000] + (options.full ? [1_000_000] : [])
                let vault = try VaultOperationsBenchmark(
                    sizes: sizes, sampledStores: quick ? 100 : 1_000, gets: quick ? 50 : 200,
                    directory: try subdirectory("vault", of: directory)
                ).run(progress: progress)
                report.vaultOperations = vault
                let upgrade = try FormatUpgradeBenchmark(
                    tokens: quick ? 1_000 : 100_000, directory: try subdirectory("upgrade", of: directory)
                ).run(progress: progress)
                report.formatUpgrade = upgrade
                tables = VaultOperationsBenchmark.tables(vault) + [FormatUpgradeBenchmark.table(upgrade)]
            case .refresh:
                let refresh = try await RefreshCoalescingBenchmark(
                    callers: 1_000, repetitions: quick ? 3 : 10, singleRefreshes: quick ? 5 : 20,
                    directory: try subdirectory("refresh", of: directory)
                ).run(progress: progress)
                report.refresh = refresh
                tables = [RefreshCoalescingBenchmark.table(refresh)]
            case .fleet:
                let fleet = try await FleetBenchmark(quick: quick, directory: try subdirectory("fleet", of: directory))
                    .run(progress: progress)
                report.fleet = fleet
                tables = FleetBenchmark.tables(fleet)
            case .idToken:
                let idToken = try await IDTokenValidationBenchmark(sampler: sampler).run()
                report.idToken = idToken
                tables = [IDTokenValidationBenchmark.table(idToken)]
            case .cli:
                let cli = try CLIBenchmark(
                    calls: quick ? 10 : 50,
                    sizes: quick ? [CLIBenchmark.comparedSize] : [1, CLIBenchmark.comparedSize, 10_000],
                    concurrentClients: 1_000, directory: try subdirectory("cli", of: directory)
                ).run(progress: progress)
                report.cli = cli
                tables = [CLIBenchmark.table(cli)]
            case .kdf:
                let (unlocks, opens) = try KeyDerivationBenchmark(
                    settings: KeyDerivationBenchmark.settings(quick: quick), keyFileOpens: quick ? 3 : 10,
                    passphraseOpens: quick ? 1 : 3, directory: try subdirectory("kdf", of: directory)
                ).run(progress: progress)
                report.keyDerivation = unlocks
                report.vaultOpen = opens
                tables = KeyDerivationBenchmark.tables(unlocks: unlocks, opens: opens)
            }
            print("\n## \(section.title)")
            print(String(format: "(%.1f s)", Stopwatch.seconds(since: sectionStart)))
            for table in tables { print("\n" + table.rendered) }
        }

        report.goals = Goal.evaluate(report)
        if !report.goals.isEmpty {
            print("\n## Goals\n")
            print(Goal.table(report.goals).rendered)
        }
        report.wallSeconds = Stopwatch.seconds(since: started)
        print(String(format: "\nWall time: %.1f s", report.wallSeconds))
        if let path = options.jsonPath {
            try report.write(to: path)
            print("JSON: \(path)")
            if let seal = report.seal {
                let chart = (path.hasSuffix(".json") ? String(path.dropLast(5)) : path) + ".svg"
                try ThroughputChart.svg(seal, machine: machine).write(toFile: chart, atomically: true, encoding: .utf8)
                print("Chart: \(chart)")
            }
        }
    }

    /// Progress lines go to standard error, so standard output holds only the report.
    private func progress(_ line: String) {
        FileHandle.standardError.write(Data("… \(line)\n".utf8))
    }

    private func subdirectory(_ name: String, of directory: URL) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
