import Foundation
import TokenVault

/// The cli section's table and goals.
extension CLIBenchmark {
    static func table(_ result: Result) -> TextTable {
        var table = TextTable([
            "process per call, p50 / p99", "secrets", "read", "add", "read / keepassxc-cli", "add / keepassxc-cli",
        ])
        func latency(_ summary: LatencySummary) -> String {
            "\(Format.duration(nanoseconds: summary.p50Ns)) / \(Format.duration(nanoseconds: summary.p99Ns))"
        }
        table.add(["/bin/true (spawning a process)", "-", latency(result.spawnFloor), "-", "-", "-"])
        table.add(["tokenvault --help (start-up, front and core)", "-", latency(result.help), "-", "-", "-"])
        for size in result.sizes {
            let keePass = size.store(keePass)
            for store in size.stores {
                table.add([
                    store.store, Format.count(Double(size.secrets)), latency(store.read), latency(store.add),
                    keePass.map { Format.ratio(store.read.p50Ns / $0.read.p50Ns) } ?? "-",
                    keePass.map { Format.ratio(store.add.p50Ns / $0.add.p50Ns) } ?? "-",
                ])
            }
        }
        table.add([
            "\(result.concurrentClients) clients at once through the agent", Format.count(Double(comparedSize)),
            "\(result.concurrentFailures) failed", String(format: "%.1f s in all", result.concurrentSeconds), "-", "-",
        ])
        for line in result.skipped { table.add([line, "-", "-", "-", "-", "-"]) }
        return table
    }

    /// tokenvault's Argon2id cost, said as the interactive preset or as what it was raised to.
    static func argon2(_ result: Result) -> String {
        let interactive = KeyDerivation.interactive.parameters.opsLimit
        return result.argon2Passes == interactive
            ? "interactive, \(interactive) passes of 64 MiB"
            : "\(result.argon2Passes) passes of 64 MiB: the interactive \(interactive) took under "
                + "keepassxc-cli's shortest, \(keePassDecryptionMilliseconds.lowerBound) ms"
    }

    static func goals(_ result: Result) -> [Goal] {
        let startUp =
            "start-up of the front and the core (tokenvault --help) \(Format.duration(nanoseconds: result.help.p50Ns)), "
            + "spawning /bin/true \(Format.duration(nanoseconds: result.spawnFloor.p50Ns))"
        /// The worst p50 of the agent's calls over the sizes, and every size's.
        func agent(_ goal: String, limit: Double, _ side: (StoreResult) -> LatencySummary) -> Goal {
            let measured = result.sizes.compactMap { size in
                size.store(throughAgent).map { (size.secrets, side($0).p50Ns) }
            }
            guard let worst = measured.max(by: { $0.1 < $1.1 }) else {
                return Goal(goal: goal, measured: "-", value: nil, limit: limit, status: .notMeasured, note: "")
            }
            let each = measured.map { "\(Format.count(Double($0.0))): \(Format.duration(nanoseconds: $0.1))" }
            return Goal(
                goal: goal,
                measured: "worst \(Format.duration(nanoseconds: worst.1)) (\(each.joined(separator: ", ")))",
                value: worst.1, limit: limit, status: worst.1 <= limit ? .met : .missed, note: startUp)
        }
        /// The worst ratio of tokenvault unlocking itself to `keepassxc-cli` from the compared size up
        /// (the goal is stated there, holding as the store grows); smaller stores are only listed.
        func ratio(_ goal: String, limit: Double, _ side: (StoreResult) -> LatencySummary) -> Goal {
            let measured = result.sizes.compactMap { size -> (Int, Double)? in
                guard let own = size.store(unlocking), let other = size.store(keePass) else { return nil }
                return (size.secrets, side(own).p50Ns / side(other).p50Ns)
            }
            guard let worst = measured.filter({ $0.0 >= comparedSize }).max(by: { $0.1 < $1.1 }) else {
                return Goal(
                    goal: goal, measured: "-", value: nil, limit: limit, status: .notMeasured,
                    note: "keepassxc-cli not installed (make bench-deps)")
            }
            let each = measured.map { "\(Format.count(Double($0.0))): \(Format.ratio($0.1))" }
            return Goal(
                goal: goal, measured: "worst \(Format.ratio(worst.1)) (\(each.joined(separator: ", ")))",
                value: worst.1, limit: limit, status: worst.1 <= limit ? .met : .missed,
                note: "keepassxc-cli's AES key derivation set to \(result.keePassMilliseconds) ms, "
                    + "tokenvault's Argon2id unlock \(result.unlockMilliseconds) ms in this run "
                    + "(\(argon2(result))); \(startUp)")
        }
        return [
            agent("CLI read through the agent at most 10 ms per process call (p50)", limit: readGoalNanoseconds) {
                $0.read
            },
            agent("CLI add through the agent at most 15 ms per process call (p50)", limit: addGoalNanoseconds) {
                $0.add
            },
            ratio(
                "CLI read without the agent at most 0.6x keepassxc-cli's (p50), 1,000 secrets and up",
                limit: readRatioGoal
            ) { $0.read },
            ratio(
                "CLI add without the agent at most 0.3x keepassxc-cli's (p50), 1,000 secrets and up",
                limit: addRatioGoal
            ) { $0.add },
            Goal(
                goal: "agent: \(result.concurrentClients) concurrent client calls, 0 failures",
                measured: "\(result.concurrentFailures) failures", value: Double(result.concurrentFailures), limit: 0,
                status: result.concurrentFailures == 0 ? .met : .missed,
                note: String(format: "all done in %.1f s", result.concurrentSeconds)
                    + result.concurrentFailureLines.map { "; a failed one printed: \($0)" }.joined()),
        ]
    }
}
