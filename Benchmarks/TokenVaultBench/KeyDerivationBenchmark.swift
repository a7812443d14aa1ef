import Foundation
import TokenVault
import VaultCrypto

/// Section 3: a passphrase unlock (`Vault.unlock`, which runs Argon2id at the slot's costs, then
/// opens the slot and derives the key ring) beside a raw `crypto_pwhash` at the same costs, for
/// each preset and both bounds; then `Vault.open` to the first read from disk, with a key file
/// (no Argon2id: the container's own cost) and with a passphrase at the default preset.
struct KeyDerivationBenchmark {
    /// One cost setting to measure.
    struct Setting {
        /// Its name in the report.
        let name: String
        /// The costs.
        let derivation: KeyDerivation
        /// How many unlocks (and as many raw derivations).
        let repetitions: Int
    }

    /// What one setting measured.
    struct Result: Codable, Sendable {
        /// `interactive`, `minimum (bound)`, ...
        let name: String
        /// Argon2id passes.
        let opsLimit: Int
        /// Argon2id memory in bytes.
        let memLimitBytes: Int
        /// `Vault.unlock(.passphrase)`.
        let unlock: LatencySummary
        /// `crypto_pwhash` at the same costs.
        let rawArgon2id: LatencySummary

        /// Unlock p50 over raw p50.
        var ratio: Double { rawArgon2id.p50Ns > 0 ? unlock.p50Ns / rawArgon2id.p50Ns : 0 }
    }

    /// What `Vault.open` to the first read measured for one kind of unlock.
    struct OpenResult: Codable, Sendable {
        /// `key file` or `passphrase (moderate)`.
        let unlock: String
        /// `Vault.open` (file open, header, slots, unlock, key ring).
        let open: LatencySummary
        /// The first `get` after it.
        let firstRead: LatencySummary
        /// Both together.
        let total: LatencySummary
    }

    /// The settings to measure.
    let settings: [Setting]
    /// How many opens with a key file.
    let keyFileOpens: Int
    /// How many opens with a passphrase at the default preset.
    let passphraseOpens: Int
    /// Where the vault files go.
    let directory: URL

    private static let passphrase = "correct horse battery staple, benchmarked"

    /// The settings of a full run, or of a quick one (which leaves out the two 1 GiB settings).
    static func settings(quick: Bool) -> [Setting] {
        var settings = [
            Setting(name: "minimum (bound)", derivation: .minimum, repetitions: quick ? 3 : 10),
            Setting(name: "interactive", derivation: .interactive, repetitions: quick ? 2 : 5),
            Setting(name: "moderate (default)", derivation: .moderate, repetitions: quick ? 1 : 3),
        ]
        if !quick {
            settings.append(Setting(name: "sensitive", derivation: .sensitive, repetitions: 1))
            settings.append(Setting(name: "maximum (bound)", derivation: .maximum, repetitions: 1))
        }
        return settings
    }

    /// Measures every setting, then the opens.
    func run(progress: (String) -> Void) throws -> (unlocks: [Result], opens: [OpenResult]) {
        RawSodiumBaseline.ensureInitialized()
        var unlocks: [Result] = []
        for setting in settings {
            progress("Argon2id \(setting.name)")
            unlocks.append(try measure(setting))
        }
        progress("Vault.open to first read")
        return (unlocks, try measureOpens())
    }

    private func measure(_ setting: Setting) throws -> Result {
        let parameters = setting.derivation.parameters
        let vault = try Vault.inMemory(
            unlock: .passphrase(Passphrase(Self.passphrase)), keyDerivation: setting.derivation)
        let password = RawBuffer(copying: Array(Self.passphrase.precomposedStringWithCanonicalMapping.utf8))
        let salt = RawBuffer(copying: SecureRandom.bytes(count: Argon2id.saltByteCount))
        let derived = RawBuffer(count: 32)
        var unlock = LatencySamples()
        var raw = LatencySamples()
        for _ in 0..<setting.repetitions {
            vault.lock()
            unlock.append(try Stopwatch.time { try vault.unlock(.passphrase(Passphrase(Self.passphrase))) })
            raw.append(
                Stopwatch.time {
                    guard
                        RawSodiumBaseline.argon2id(
                            password: password.readOnly, salt: salt.readOnly, opsLimit: parameters.opsLimit,
                            memLimitBytes: parameters.memLimitBytes, into: derived.bytes)
                    else { fatalError("crypto_pwhash could not get \(parameters.memLimitBytes) bytes") }
                })
        }
        return Result(
            name: setting.name, opsLimit: parameters.opsLimit, memLimitBytes: parameters.memLimitBytes,
            unlock: unlock.summary, rawArgon2id: raw.summary)
    }

    private func measureOpens() throws -> [OpenResult] {
        let keyFile = directory.appendingPathComponent("open.key")
        try KeyFile.generate(at: keyFile)
        let cases: [(String, VaultUnlock, KeyDerivation, Int)] = [
            ("key file", .keyFile(keyFile), .moderate, keyFileOpens),
            ("passphrase (moderate)", .passphrase(Passphrase(Self.passphrase)), .moderate, passphraseOpens),
        ]
        let item = SecretKey<String>("api-key")
        return try cases.enumerated().map { index, entry in
            let (name, unlock, derivation, repetitions) = entry
            let url = directory.appendingPathComponent("open-\(index).vault")
            try Vault.create(at: url, unlock: unlock, keyDerivation: derivation).set(
                String(repeating: "k", count: 64), for: item)
            var open = LatencySamples()
            var firstRead = LatencySamples()
            var total = LatencySamples()
            for _ in 0..<repetitions {
                let start = Stopwatch.now()
                let vault = try Vault.open(at: url, unlock: unlock)
                let opened = Stopwatch.now()
                guard try vault.get(item) != nil else { fatalError("the stored item is missing") }
                let read = Stopwatch.now()
                open.append(opened &- start)
                firstRead.append(read &- opened)
                total.append(read &- start)
            }
            return OpenResult(unlock: name, open: open.summary, firstRead: firstRead.summary, total: total.summary)
        }
    }

    /// The unlock table and the open table.
    static func tables(unlocks: [Result], opens: [OpenResult]) -> [TextTable] {
        var unlockTable = TextTable([
            "Argon2id costs", "passes", "memory", "n", "Vault.unlock p50", "p99", "raw crypto_pwhash p50", "unlock/raw",
        ])
        for result in unlocks {
            unlockTable.add([
                result.name, "\(result.opsLimit)", Format.bytes(Double(result.memLimitBytes)), "\(result.unlock.count)",
                Format.duration(nanoseconds: result.unlock.p50Ns), Format.duration(nanoseconds: result.unlock.p99Ns),
                Format.duration(nanoseconds: result.rawArgon2id.p50Ns), Format.ratio(result.ratio),
            ])
        }
        var openTable = TextTable([
            "Vault.open → first read", "n", "open + unlock p50", "first read p50", "total p50", "total p99",
        ])
        for result in opens {
            openTable.add([
                result.unlock, "\(result.total.count)", Format.duration(nanoseconds: result.open.p50Ns),
                Format.duration(nanoseconds: result.firstRead.p50Ns), Format.duration(nanoseconds: result.total.p50Ns),
                Format.duration(nanoseconds: result.total.p99Ns),
            ])
        }
        return [unlockTable, openTable]
    }
}
