import Foundation
import TestSupport
import Testing

/// A real full disk: a 4 MiB tmpfs mounted in a private user and mount namespace (`unshare -rm`,
/// no root needed, gone when the process exits), filled by a worker until a write fails.
@Suite struct FullDiskTests {
    static let unshare = URL(fileURLWithPath: "/usr/bin/unshare")

    /// Whether this machine lets a process mount a tmpfs in a namespace of its own.
    static let canMountPrivateTmpfs: Bool = {
        let directory = TemporaryDirectory()
        let result = try? run(["sh", "-c", "mount -t tmpfs -o size=64k tmpfs \"$0\"", directory.url.path])
        return result?.status == 0
    }()

    @Test(
        .enabled(
            if: canMountPrivateTmpfs,
            "needs `unshare -rm` and tmpfs mounts in a user namespace (util-linux; kernel.unprivileged_userns_clone)"
        ))
    func aFailedWriteOnAFullDiskLeavesThePreviousStateIntact() throws {
        let directory = TemporaryDirectory()
        let script =
            "mount -t tmpfs -o size=4m tmpfs \"$0\" && exec \"$1\" fill-disk \"$0/vault.db\" \"$0/vault.key\" \"$0/filler\" 2000"
        let result = try Self.run(["sh", "-c", script, directory.url.path, WorkerProcess.executable.path])
        #expect(result.status == 0, "\(result.output.suffix(300))")

        let lines = result.output.split(separator: "\n")
        var journal = WorkloadJournal(baseline: WorkloadState())
        journal.record(lines.prefix { !$0.hasPrefix("item ") }.joined(separator: "\n"), worker: "filler")
        let failure = lines.first { $0.hasPrefix("failed set item-") }
        #expect(failure?.contains("disk is full") == true, "\(failure ?? "no write failed")")
        #expect(journal.acknowledgedWrites > 50, "the disk filled too early to mean anything")

        for label in ["item", "reopened"] {
            var state = WorkloadState()
            for line in lines where line.hasPrefix(label + " ") {
                let fields = line.split(separator: " ", maxSplits: 2)
                state.values[String(fields[1])] = String(fields[2])
            }
            #expect(
                state == journal.expected, "\(label): the vault after the failed write is not what was acknowledged")
        }
        #expect(lines.contains("ack set recovered after"), "the vault did not take writes again once space was freed")
        print(
            "full disk: \(journal.acknowledgedWrites) writes acknowledged before the disk filled; the failed one left no trace"
        )
    }

    /// Runs `arguments` in a user and mount namespace of its own.
    private static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try WorkerProcess.run(["--user", "--map-root-user", "--mount"] + arguments, program: unshare)
    }
}
