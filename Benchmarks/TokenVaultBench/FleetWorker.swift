import Foundation
import TokenVault

/// What one fleet worker process is asked to do: written by ``FleetProcesses`` as JSON to a file
/// of mode 0600, since it holds the connection string and so the server password, which never goes
/// on a command line (other users can read those). The worker is this same executable, run as
/// `tokenvault-bench --fleet-worker <file>`.
struct FleetWorkerSpec: Codable, Sendable {
    /// The two kinds of work.
    enum Job: String, Codable, Sendable {
        /// ``FleetWorker/mixed(_:vault:)``: `operations` mixed operations.
        case mixed
        /// ``FleetWorker/refresh(_:)``: one `refreshIfNeeded` of `credentialID`.
        case refresh
    }

    /// Which work.
    let job: Job
    /// The libpq connection string of the vault in PostgreSQL.
    let connection: String
    /// The key file that unlocks it.
    let keyFile: String
    /// This worker's number, 0 up: names its items.
    let index: Int
    /// For ``Job/mixed``, how many operations.
    let operations: Int
    /// For ``Job/refresh``, the stored credential.
    let credentialID: String
    /// Created by the worker once it is ready to start (the vault open, the credential loaded).
    let readyFile: String
    /// Created by the section when every worker is ready: the start barrier.
    let goFile: String
}

/// What a ``FleetWorkerSpec/Job/mixed`` worker prints, as one JSON line.
struct FleetMixedOutput: Codable, Sendable {
    /// Each operation's latency in nanoseconds, by kind (``FleetWorker/MixedOperation``).
    let latencies: [String: [UInt64]]
    /// Wall-clock seconds since 1970 when the first operation began.
    let startedAt: Double
    /// Wall-clock seconds since 1970 when the last operation returned.
    let finishedAt: Double
}

/// What a ``FleetWorkerSpec/Job/refresh`` worker prints, as one JSON line.
struct FleetRefreshOutput: Codable, Sendable {
    /// Wall-clock seconds since 1970 (to the microsecond) when `refreshIfNeeded` returned.
    let gotTokenAt: Double
    /// The first 16 hex digits of the new access token's SHA-256: never the token itself.
    let tokenDigest: String
    /// Whether the access token differs from the one the worker loaded before the barrier.
    let changed: Bool
}

/// The worker side of the fleet section: opens the vault in PostgreSQL with its key file, gets
/// ready, waits on the barrier, does its job and prints the result as one JSON line.
enum FleetWorker {
    /// The mixed workload, a cycle of ten operations: four `vault.set` and four `vault.get` of
    /// the worker's own secrets (20 names, each set many times), one `Credential.store` of a
    /// fixture token and one read of a token this worker stored, by id, from the vault (the
    /// storage's `token(id:)`, no `Credential` instance).
    enum MixedOperation: String, CaseIterable, Sendable {
        case set = "vault.set (secret)"
        case get = "vault.get (secret)"
        case store = "Credential.store (token)"
        case tokenGet = "token get by id"

        /// The operation at step `step` of the cycle.
        static func at(_ step: Int) -> MixedOperation {
            switch step % 10 {
            case 8: .store
            case 9: .tokenGet
            case let even where even % 2 == 0: .set
            default: .get
            }
        }
    }

    /// Runs the worker described in the file at `path`.
    ///
    /// - Throws: Whatever opening the vault or the job throws; the caller prints it and exits 1.
    static func run(specAt path: String) async throws {
        let spec = try JSONDecoder().decode(FleetWorkerSpec.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        // Two connections each: a fleet of 16 stays well under the server's 100.
        let vault = try Vault.open(
            postgres: spec.connection, unlock: .keyFile(URL(fileURLWithPath: spec.keyFile)),
            configuration: .init(busyTimeout: .seconds(60), connections: 2))
        defer { vault.close() }
        try Credential.use(vault)
        defer { Credential.tokenStorage = InMemoryTokenStorage() }
        let line: Data
        switch spec.job {
        case .mixed: line = try JSONEncoder().encode(try mixed(spec, vault: vault))
        case .refresh: line = try JSONEncoder().encode(try await refresh(spec))
        }
        FileHandle.standardOutput.write(line + Data("\n".utf8))
        if spec.job == .refresh { try awaitPeers(spec) }
    }

    /// `spec.operations` operations of the cycle ``MixedOperation`` describes, each timed.
    private static func mixed(_ spec: FleetWorkerSpec, vault: Vault) throws -> FleetMixedOutput {
        var latencies: [MixedOperation: [UInt64]] = [:]
        var stored: [String] = []
        try awaitBarrier(spec)
        let startedAt = Date().timeIntervalSince1970
        for step in 0..<spec.operations {
            let name = "worker-\(spec.index)-item-\(step / 2 % 20)"
            let operation = MixedOperation.at(step)
            let elapsed: UInt64
            switch operation {
            case .set:
                elapsed = try Stopwatch.time { try vault.set("value \(step)", for: SecretKey<String>(name)) }
            case .get:
                elapsed = try Stopwatch.time {
                    guard try vault.get(SecretKey<String>(name)) != nil else {
                        throw FleetFailure("a secret is missing")
                    }
                }
            case .store:
                let index = spec.index * 1_000_000 + step
                let token = try TokenFixtures.token(index)
                let tags = TokenFixtures.tags(index)
                elapsed = try Stopwatch.time { try Credential.store(token, tags: tags) }
                stored.append(token.id)
            case .tokenGet:
                let id = stored.randomElement() ?? ""
                elapsed = try Stopwatch.time {
                    guard try Credential.tokenStorage.token(id: id, prompt: nil, authenticationContext: nil) != nil
                    else { throw FleetFailure("a stored token is missing") }
                }
            }
            latencies[operation, default: []].append(elapsed)
        }
        return FleetMixedOutput(
            latencies: Dictionary(uniqueKeysWithValues: latencies.map { ($0.key.rawValue, $0.value) }),
            startedAt: startedAt, finishedAt: Date().timeIntervalSince1970)
    }

    /// Loads the credential, waits on the barrier, then `refreshIfNeeded(graceInterval: 60)`.
    private static func refresh(_ spec: FleetWorkerSpec) async throws -> FleetRefreshOutput {
        guard let credential = try Credential.with(id: spec.credentialID) else {
            throw FleetFailure("the credential is not stored")
        }
        let before = credential.token.accessToken
        try awaitBarrier(spec)
        try await credential.refreshIfNeeded(graceInterval: 60)
        let gotTokenAt = Date().timeIntervalSince1970
        let token = credential.token.accessToken
        let digest = SHA256.hash(Array(token.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
        return FleetRefreshOutput(gotTokenAt: gotTokenAt, tokenDigest: digest, changed: token != before)
    }

    /// Says it has the new token (creates a `done-` file beside ``FleetWorkerSpec/readyFile``), then
    /// waits until every worker of the rotation (one `ready-` file each) has said so before exiting:
    /// a replica of a fleet goes on running after a refresh, and a worker exiting while the others
    /// still wake (its server connections closing, its runtime tearing down) took the 2 cores
    /// from them and lengthened their wake-ups threefold.
    private static func awaitPeers(_ spec: FleetWorkerSpec) throws {
        let folder = URL(fileURLWithPath: spec.readyFile).deletingLastPathComponent()
        guard
            FileManager.default.createFile(
                atPath: folder.appendingPathComponent("done-\(spec.index)").path, contents: nil)
        else { throw FleetFailure("cannot create the done file") }
        try wait(every: 2_000, failing: "the other workers never got the token") {
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            return names.count(where: { $0.hasPrefix("done-") }) >= names.count(where: { $0.hasPrefix("ready-") })
        }
    }

    /// Says it is ready (creates ``FleetWorkerSpec/readyFile``), then waits for
    /// ``FleetWorkerSpec/goFile`` to appear, looking every 0.2 ms: the start is that precise.
    private static func awaitBarrier(_ spec: FleetWorkerSpec) throws {
        guard FileManager.default.createFile(atPath: spec.readyFile, contents: nil) else {
            throw FleetFailure("cannot create the ready file")
        }
        try wait(every: 200, failing: "the start barrier never opened") { access(spec.goFile, F_OK) == 0 }
    }

    /// Checks `done` every `microseconds` until it holds, for 120 s at most.
    ///
    /// - Throws: ``FleetFailure`` saying `failure` when it never held, or what `done` threw.
    private static func wait(every microseconds: UInt32, failing failure: String, until done: () throws -> Bool) throws
    {
        let deadline = Date().addingTimeInterval(120)
        while try !done() {
            guard Date() < deadline else { throw FleetFailure(failure) }
            usleep(microseconds)
        }
    }
}

/// Why a fleet worker or the section failed, in words with no secret in them.
struct FleetFailure: Error, CustomStringConvertible {
    /// What went wrong.
    let description: String

    /// A failure saying `description`.
    init(_ description: String) {
        self.description = description
    }
}
