import Foundation
import TokenVault
import VaultCore

/// Part of section 4: the upgrade of a format version 2 vault to the current version, which
/// re-seals every token record with its index terms and files them in the index, in one
/// transaction, the first time a `VaultTokenStorage` is made over it (`Credential.use`).
///
/// No committed fixture has this many tokens, so the version 2 vault is written through a bulk hook
/// (`VaultTokenStorage.addAllInFormat2ForBenchmarking`: the records without terms, the header at
/// version 2, no index table). Measured once: the upgrade changes the file.
struct FormatUpgradeBenchmark {
    /// What was measured.
    struct Result: Codable, Sendable {
        /// The tokens upgraded.
        let tokens: Int
        /// `Vault.open` (key file) of the version 2 vault.
        let openNs: Double
        /// `VaultTokenStorage(vault:)`: verification, re-sealing, indexing and the commit.
        let upgradeNs: Double
        /// The first `find(tags:)` after it, through the new index.
        let firstFindNs: Double
        /// The vault file + `-wal` + `-shm` before the upgrade.
        let bytesBefore: Int
        /// The same after the upgrade and the find, with the vault still open.
        let bytesAfter: Int
        /// RSS right after the upgrade.
        let residentBytes: Int

        /// The upgrade per token.
        var upgradePerTokenNs: Double { upgradeNs / Double(max(tokens, 1)) }
    }

    /// How many tokens the version 2 vault holds.
    let tokens: Int
    /// Where the files go.
    let directory: URL

    /// Writes the version 2 vault, reopens it and times the upgrade.
    func run(progress: (String) -> Void) throws -> Result {
        let keyFile = directory.appendingPathComponent("upgrade.key")
        try KeyFile.generate(at: keyFile)
        let url = directory.appendingPathComponent("upgrade.vault")
        var written = 0
        do {
            let vault = try Vault.create(at: url, unlock: .keyFile(keyFile))
            while written < tokens {
                let batch = try TokenFixtures.stored(
                    written..<min(written + VaultOperationsBenchmark.bulkBatch, tokens))
                try VaultTokenStorage.addAllInFormat2ForBenchmarking(batch, to: vault)
                written += batch.count
                if written % 50_000 == 0 { progress("upgrade: \(written)/\(tokens) format 2 tokens written") }
            }
        }  // the vault is released here, closing its connection
        let bytesBefore = Self.bytesOnDisk(url)

        progress("upgrade: \(tokens) tokens from format 2 to the current format")
        var vault: Vault?
        let openNs = try Stopwatch.time { vault = try Vault.open(at: url, unlock: .keyFile(keyFile)) }
        guard let vault, try !vault.indexesTokenRecords else { fatalError("the vault is not at format 2") }
        var storage: VaultTokenStorage?
        let upgradeNs = try Stopwatch.time { storage = try VaultTokenStorage(vault: vault) }
        let residentBytes = ResourceUsage.residentBytes()
        guard let storage, try vault.indexesTokenRecords else { fatalError("the vault was not upgraded") }
        Credential.tokenStorage = storage
        let user = TokenFixtures.user(Int.random(in: 0..<tokens))
        let firstFindNs = try Stopwatch.time {
            guard try Credential.find(tags: ["user": user]).count == 1 else { fatalError("find after the upgrade") }
        }
        let result = Result(
            tokens: tokens, openNs: Double(openNs), upgradeNs: Double(upgradeNs), firstFindNs: Double(firstFindNs),
            bytesBefore: bytesBefore, bytesAfter: Self.bytesOnDisk(url), residentBytes: residentBytes)
        Credential.tokenStorage = InMemoryTokenStorage()
        return result
    }

    private static func bytesOnDisk(_ url: URL) -> Int {
        ["", "-wal", "-shm"].reduce(0) { $0 + ResourceUsage.fileBytes(url.path + $1) }
    }

    /// The upgrade's table.
    static func table(_ result: Result) -> TextTable {
        var table = TextTable(["format 2 -> 5 upgrade", "\(Format.count(Double(result.tokens))) tokens"])
        table.add(["Vault.open (key file) of the format 2 vault", Format.duration(nanoseconds: result.openNs)])
        table.add([
            "upgrade: VaultTokenStorage(vault:), one transaction", Format.duration(nanoseconds: result.upgradeNs),
        ])
        table.add(["upgrade per token", Format.duration(nanoseconds: result.upgradePerTokenNs)])
        table.add(["first find(tags:) after it", Format.duration(nanoseconds: result.firstFindNs)])
        table.add([
            "file + -wal + -shm before / after",
            "\(Format.bytes(Double(result.bytesBefore))) / \(Format.bytes(Double(result.bytesAfter)))",
        ])
        table.add(["RSS right after the upgrade", Format.bytes(Double(result.residentBytes))])
        return table
    }
}
