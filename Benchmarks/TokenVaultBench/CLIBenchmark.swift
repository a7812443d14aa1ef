import Foundation
import TokenVault

/// Section 8: the `tokenvault` binary, one process per call, beside `pass` and `keepassxc-cli` in
/// the same run: reading one secret and adding one, on stores of each size, for tokenvault
/// unlocking the vault itself (interactive Argon2id cost) and through its agent, for `pass` (a
/// throwaway GnuPG home, key without passphrase) and for `keepassxc-cli` (a `.kdbx` whose key
/// derivation takes what tokenvault's does; see ``matchedKeyDerivation(in:_:)``). The calls of every store are interleaved, so load on
/// the machine reaches them alike. Also: 1,000 clients started at once against the agent, and
/// where a call's start-up goes (`/bin/true` for spawning a process, `tokenvault --help`, which
/// the front passes to the core). Calls through the agent are the front's alone.
struct CLIBenchmark {
    /// One store's calls at one size.
    struct StoreResult: Codable, Sendable {
        let store: String
        let read: LatencySummary
        let add: LatencySummary
    }

    /// Every store's calls at one size.
    struct SizeResult: Codable, Sendable {
        let secrets: Int
        let stores: [StoreResult]

        func store(_ name: String) -> StoreResult? { stores.first { $0.store == name } }
    }

    /// What was measured.
    struct Result: Codable, Sendable {
        let callsPerStore: Int
        let spawnFloor: LatencySummary
        let help: LatencySummary
        /// tokenvault's unlock in this process (median of 3), in milliseconds.
        let unlockMilliseconds: Int
        /// The decryption time `keepassxc-cli` sets its key derivation to: tokenvault's unlock,
        /// within what `keepassxc-cli` accepts.
        var keePassMilliseconds: Int { unlockMilliseconds.clamped(to: CLIBenchmark.keePassDecryptionMilliseconds) }
        /// The Argon2id passes of tokenvault's vaults (64 MiB each): the interactive preset's 2, or
        /// more where those take less than `keepassxc-cli`'s shortest decryption time.
        let argon2Passes: Int
        let sizes: [SizeResult]
        let concurrentClients: Int
        let concurrentFailures: Int
        /// What the failed clients printed on standard error, each distinct line once.
        let concurrentFailureLines: [String]
        let concurrentSeconds: Double
        /// One line per comparison tool not measured, and why.
        let skipped: [String]
    }

    static let unlocking = "tokenvault"
    static let throughAgent = "tokenvault, agent"
    static let pass = "pass"
    static let keePass = "keepassxc-cli"
    /// The store size the ratios to `keepassxc-cli` are stated for.
    static let comparedSize = 1_000

    /// The goals' limits, per process call at the median.
    static let readGoalNanoseconds = 10_000_000.0
    static let addGoalNanoseconds = 15_000_000.0
    static let readRatioGoal = 0.6
    static let addRatioGoal = 0.3
    /// The decryption times `keepassxc-cli import -t` accepts, in milliseconds.
    static let keePassDecryptionMilliseconds = 100...5_000

    let calls: Int
    /// The store sizes, each with stores of its own.
    let sizes: [Int]
    let concurrentClients: Int
    let directory: URL

    func run(progress: (String) -> Void) throws -> Result {
        // `make bench` names the statically linked build; else the one built beside the harness.
        let binary =
            ProcessInfo.processInfo.environment["TOKENVAULT_BENCH_CLI"].map(URL.init(fileURLWithPath:))
            ?? URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("tokenvault")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: binary.path])
        }
        let passphrase = "cli benchmark passphrase"
        let passphraseFile = directory.appendingPathComponent("passphrase")
        try Data((passphrase + "\n").utf8).write(to: passphraseFile)
        chmod(passphraseFile.path, 0o600)
        let valueFile = directory.appendingPathComponent("value")
        try Data("benchmark value".utf8).write(to: valueFile)

        // A short folder of its own: a unix socket's path (the agent's, gpg-agent's) has at most 107 bytes.
        var template = Array("/tmp/tvbench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        let runtime = URL(fileURLWithPath: String(cString: made))
        defer { try? FileManager.default.removeItem(at: runtime) }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtime.path
        environment["TOKENVAULT_PASSPHRASE"] = nil
        environment["TOKENVAULT_BENCH_CLI"] = nil
        // The calls that unlock the vault themselves look for an agent in a folder where none runs
        // (and none can: the folder does not exist), so they never reach the one the others use.
        var withoutAgent = environment
        withoutAgent["XDG_RUNTIME_DIR"] = runtime.appendingPathComponent("no-agent").path

        progress("cli: start-up")
        let spawnFloor = try Self.sample(calls) {
            ProcessCall(program: URL(fileURLWithPath: "/bin/true"), arguments: [], environment: environment)
        }
        let help = try Self.sample(calls) {
            ProcessCall(program: binary, arguments: ["--help"], environment: environment)
        }

        var skipped: [String] = []
        let keyring: PassStore.Keyring?
        do {
            keyring = try PassStore.Keyring.make(in: runtime, environment: environment)
            if keyring == nil { skipped.append("pass: gpg not installed (make bench-deps), skipped") }
        } catch {
            keyring = nil
            skipped.append("pass: the GnuPG test key could not be made (\(error)), skipped")
        }
        defer { keyring?.stop() }
        if keyring != nil, ProcessCall.installed("pass", environment) == nil {
            skipped.append("pass: not installed (make bench-deps), skipped")
        }
        if ProcessCall.installed("keepassxc-cli", environment) == nil {
            skipped.append("keepassxc-cli: not installed (make bench-deps), skipped")
        }

        let (keyDerivation, unlockMilliseconds) = try Self.matchedKeyDerivation(in: directory, passphrase)
        var results: [SizeResult] = []
        var concurrent = (failures: 0, lines: [String](), seconds: 0.0)
        for secrets in sizes {
            let folder = directory.appendingPathComponent("\(secrets)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            progress("cli: \(secrets) secrets: filling the stores")
            let vaultURL = folder.appendingPathComponent("cli.db")
            let vault = try Vault.create(
                at: vaultURL, unlock: .passphrase(Passphrase(passphrase)), keyDerivation: keyDerivation)
            let secretStore = SecretStore(vault: vault, service: "tokenvault")
            for index in 0..<secrets { try secretStore.set(Data("value \(index)".utf8), forKey: "secret-\(index)") }
            vault.close()

            let vaultOptions = ["--vault", vaultURL.path]
            var stores: [any ComparedStore] = [
                TokenVaultCommandStore(
                    name: Self.unlocking, binary: binary,
                    options: vaultOptions + ["--passphrase-file", passphraseFile.path], environment: withoutAgent,
                    valueFile: valueFile, addedPrefix: "added"),
                TokenVaultCommandStore(
                    name: Self.throughAgent, binary: binary, options: vaultOptions, environment: environment,
                    valueFile: valueFile, addedPrefix: "agent-added"),
            ]
            if let keyring {
                let storeFolder = folder.appendingPathComponent("pass")
                try FileManager.default.createDirectory(at: storeFolder, withIntermediateDirectories: false)
                if let store = try PassStore.make(
                    at: storeFolder, secrets: secrets, keyring: keyring, valueFile: valueFile)
                {
                    stores.append(store)
                }
            }
            if let database = try KeePassDatabase.make(
                at: folder.appendingPathComponent("cli.kdbx"), secrets: secrets, passphrase: passphrase,
                decryptionMilliseconds: unlockMilliseconds.clamped(to: Self.keePassDecryptionMilliseconds),
                environment: environment)
            {
                stores.append(database)
            }

            let unlock = ProcessCall(
                program: binary,
                arguments: ["unlock", "--idle", "10m", "--passphrase-file", passphraseFile.path] + vaultOptions,
                environment: environment)
            try unlock.run()
            defer {
                _ = try? ProcessCall(program: binary, arguments: ["lock"] + vaultOptions, environment: environment)
                    .run()
            }
            progress(
                "cli: \(secrets) secrets: \(calls) reads and adds each, \(stores.map(\.name).joined(separator: ", "))")
            var reads = Array(repeating: LatencySamples(reservingCapacity: calls), count: stores.count)
            var adds = reads
            for call in 0..<calls {
                for (position, store) in stores.enumerated() {
                    reads[position].append(try store.read(call * 7 % secrets).run())
                    adds[position].append(try store.add(call).run())
                }
            }
            results.append(
                SizeResult(
                    secrets: secrets,
                    stores: stores.indices.map {
                        StoreResult(store: stores[$0].name, read: reads[$0].summary, add: adds[$0].summary)
                    }))

            if secrets == Self.comparedSize {
                progress("cli: \(concurrentClients) clients at once")
                let started = Stopwatch.now()
                let errorFolder = folder.appendingPathComponent("concurrent-stderr")
                try FileManager.default.createDirectory(at: errorFolder, withIntermediateDirectories: false)
                let clients = try (0..<concurrentClients).map { client in
                    var call = stores[1].read(client % secrets)
                    call.errorOutput = errorFolder.appendingPathComponent("\(client)")
                    return try call.start()
                }
                let statuses = clients.map { $0.wait() }
                concurrent.seconds = Stopwatch.seconds(since: started)
                let failed = statuses.indices.filter { statuses[$0] != 0 }
                concurrent.failures = failed.count
                let lines = failed.map { client in
                    let file = errorFolder.appendingPathComponent("\(client)")
                    let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
                    let status = clients[client].process.terminationReason == .uncaughtSignal ? "signal" : "status"
                    return "\(status) \(statuses[client]): "
                        + (text.split(separator: "\n").first.map(String.init) ?? "nothing on stderr")
                }
                concurrent.lines = Array(Set(lines)).sorted()
            }
        }
        return Result(
            callsPerStore: calls, spawnFloor: spawnFloor, help: help, unlockMilliseconds: unlockMilliseconds,
            argon2Passes: keyDerivation.parameters.opsLimit, sizes: results, concurrentClients: concurrentClients,
            concurrentFailures: concurrent.failures, concurrentFailureLines: concurrent.lines,
            concurrentSeconds: concurrent.seconds, skipped: skipped)
    }

    private static func sample(_ calls: Int, _ call: () -> ProcessCall) throws -> LatencySummary {
        LatencySummary(try (0..<calls).map { _ in try call().run() })
    }

    /// The key derivation of tokenvault's vaults, and what an unlock with it takes here in
    /// milliseconds: the interactive preset, unless that takes less than the shortest decryption
    /// time `keepassxc-cli` can be given (a faster machine, a quiet one). Then the preset's memory
    /// with as many more passes as reach it, so both tools still pay one and the same key
    /// derivation time, never `keepassxc-cli` more than tokenvault.
    private static func matchedKeyDerivation(
        in directory: URL, _ passphrase: String
    ) throws -> (KeyDerivation, Int) {
        let shortest = keePassDecryptionMilliseconds.lowerBound
        let maximum = KeyDerivation.maximum.parameters.opsLimit
        var derivation = KeyDerivation.interactive
        for attempt in 1... {
            let probe = directory.appendingPathComponent("kdf-probe-\(attempt).db")
            try Vault.create(at: probe, unlock: .passphrase(Passphrase(passphrase)), keyDerivation: derivation)
                .close()
            let milliseconds = try unlockMilliseconds(probe, passphrase)
            let passes = derivation.parameters.opsLimit
            // Load on the machine moves the time between probes: a few tries, then what there is.
            if milliseconds >= shortest || passes >= maximum || attempt == 4 { return (derivation, milliseconds) }
            let needed = Int((Double(passes) * Double(shortest) / Double(milliseconds)).rounded(.up))
            derivation = .custom(
                opsLimit: min(max(needed, passes + 1), maximum),
                memLimitBytes: KeyDerivation.interactive.parameters.memLimitBytes)
        }
        preconditionFailure("the fourth attempt returns")
    }

    /// The median of three passphrase unlocks of the vault at `url`, in milliseconds.
    private static func unlockMilliseconds(_ url: URL, _ passphrase: String) throws -> Int {
        let times = try (0..<3).map { _ in
            let started = Stopwatch.now()
            try Vault.open(at: url, unlock: .passphrase(Passphrase(passphrase))).close()
            return Stopwatch.seconds(since: started)
        }
        return max(1, Int((times.sorted()[1] * 1_000).rounded()))
    }
}

extension Comparable {
    /// The value, or the nearer bound of `range` when outside it.
    fileprivate func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
