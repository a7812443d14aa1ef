import Foundation
import TestSupport
import Testing
import TokenVault

/// Writer processes killed with SIGKILL at random points: after every kill the vault opens,
/// `verify()` passes and every acknowledged write is there (the one in flight may or may not be).
///
/// `make test` runs a short version; `make stress` sets `TOKENVAULT_CRASH_KILLS` for the long one.
@Suite struct CrashConsistencyTests {
    static let kills = ProcessInfo.processInfo.environment["TOKENVAULT_CRASH_KILLS"].flatMap(Int.init) ?? 40

    /// The vaults the writers share: a vault file, and a vault in PostgreSQL, where a killed
    /// writer's connection drops mid-transaction (when a server could be started).
    static let vaults = ["vault file"] + (PostgresTestServer.isAvailable ? ["vault in PostgreSQL"] : [])

    @Test(arguments: vaults)
    func killedWritersLoseNoAcknowledgedWrite(vault kind: String) async throws {
        let directory = TemporaryDirectory()
        let (vault, url, keyFile, reopen) = try Self.sharedVault(kind, in: directory)
        // With the local server, one credential is refreshed for real. Rotation stays on; the grace
        // period keeps a refresh token the server rotated just before a kill usable (SECURITY.md).
        let server =
            AuthorizationServer.isAvailable
            ? try AuthorizationServer(.init(reuseProtection: false, gracePeriod: 3600)) : nil
        if let server {
            let token = try await server.passwordToken()
            _ = try VaultTokenStorage(vault: vault).add(
                token: token, metadata: Token.Metadata(token: token, tags: ["owner": "w", "kind": "server"]),
                security: Credential.Security.standard)
        }
        var baseline = try WorkloadState.read(vault)
        _ = consume vault

        var generator = SystemRandomNumberGenerator()
        var writesChecked = 0
        var interruptedWrites = 0
        for round in 0..<Self.kills {
            let worker = try WorkerProcess.start(["mixed", url.path, keyFile.path, "w", "1000000"])
            let output = WorkerProcess.kill(
                after: Int.random(in: 0...25, using: &generator), linesStartingWith: "ack ",
                delay: .microseconds(Int.random(in: 0...3000, using: &generator)), worker)
            #expect(
                worker.0.terminationReason == .uncaughtSignal && worker.0.terminationStatus == SIGKILL,
                "round \(round): the worker stopped by itself: \(output.suffix(400))")

            let reopened = try reopen()
            _ = try reopened.verify()  // throws on any missing, extra or rolled-back record
            let actual = try WorkloadState.read(reopened)
            var journal = WorkloadJournal(baseline: baseline)
            journal.record(output, worker: "w")
            if let mismatch = journal.mismatch(in: actual, exactDefault: true) {
                Issue.record("round \(round) (\(output.prefix(30))): \(mismatch)")
                return
            }
            writesChecked += journal.acknowledgedWrites
            if actual != journal.expected { interruptedWrites += 1 }
            baseline = actual
        }
        print(
            "crash consistency (\(kind)): \(Self.kills) SIGKILLs survived, \(writesChecked) acknowledged writes checked, "
                + "\(interruptedWrites) kills landed after a write committed and before it was acknowledged")
        _ = server
    }

    /// A new vault of `kind`, the path a worker opens it by, its key file, and how to open it again.
    static func sharedVault(
        _ kind: String, in directory: TemporaryDirectory
    ) throws -> (Vault, URL, URL, () throws -> Vault) {
        guard kind == "vault in PostgreSQL" else {
            let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
            return (vault, url, keyFile, { try Vault.open(at: url, unlock: .keyFile(keyFile)) })
        }
        let (vault, connection, workerPath, keyFile) = try PostgresTestServer.keyFileVault(in: directory)
        return (vault, workerPath, keyFile, { try Vault.open(postgres: connection, unlock: .keyFile(keyFile)) })
    }
}
