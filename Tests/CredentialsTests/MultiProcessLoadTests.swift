import Foundation
import TestSupport
import Testing
import TokenVault

/// Several processes run mixed operations on one vault file at once: none sees an error (no
/// `database is locked`), none loses an update, and the final state is exactly what they acknowledged.
///
/// `make stress` raises `TOKENVAULT_LOAD_WORKERS` and `TOKENVAULT_LOAD_OPERATIONS`.
@Suite struct MultiProcessLoadTests {
    static let environment = ProcessInfo.processInfo.environment
    static let workers = environment["TOKENVAULT_LOAD_WORKERS"].flatMap(Int.init) ?? 4
    static let operations = environment["TOKENVAULT_LOAD_OPERATIONS"].flatMap(Int.init) ?? 1000

    @Test func concurrentProcessesEndWithExactlyTheAcknowledgedState() async throws {
        let directory = TemporaryDirectory()
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        let tags = (0..<Self.workers).map { "w\($0)" }
        // With the local server each worker also refreshes a credential of its own for real.
        let server = AuthorizationServer.isAvailable ? try AuthorizationServer() : nil
        if let server {
            let storage = try VaultTokenStorage(vault: vault)
            for tag in tags {
                let token = try await server.passwordToken()
                _ = try storage.add(
                    token: token, metadata: Token.Metadata(token: token, tags: ["owner": tag, "kind": "server"]),
                    security: Credential.Security.standard)
            }
        }
        var journal = WorkloadJournal(baseline: try WorkloadState.read(vault))

        let started = try tags.map {
            try WorkerProcess.start(["mixed", url.path, keyFile.path, $0, "\(Self.operations)"])
        }
        let finished = started.map(WorkerProcess.finish)
        for (index, (tag, result)) in zip(tags, finished).enumerated() {
            let stop = started[index].0.terminationReason == .uncaughtSignal ? "signal" : "exit status"
            #expect(result.status == 0, "worker \(tag) failed (\(stop) \(result.status)): \(result.output.suffix(300))")
            #expect(!result.output.contains("locked"), "worker \(tag) saw a lock error")
            journal.record(result.output, worker: tag)
        }
        #expect(journal.acknowledgedOperations == Self.workers * Self.operations - skippedOperations(finished))

        _ = try vault.verify()
        let actual = try WorkloadState.read(vault)
        let mismatch = journal.mismatch(in: actual, exactDefault: false)
        #expect(mismatch == nil, "\(mismatch ?? "")")
        print(
            "multi-process load: \(Self.workers) processes x \(Self.operations) operations, "
                + "\(journal.acknowledgedOperations) acknowledged (\(journal.acknowledgedWrites) writes), "
                + "shared counter \(actual.counter)")
        _ = server
    }

    /// Operations a worker chose but had nothing to do for (no credential to switch to or remove).
    private func skippedOperations(_ finished: [(status: Int32, output: String)]) -> Int {
        finished.reduce(0) { total, result in
            total + Int(result.output.split(separator: "\n").first { $0.hasPrefix("skipped ") }?.dropFirst(8) ?? "0")!
        }
    }
}
