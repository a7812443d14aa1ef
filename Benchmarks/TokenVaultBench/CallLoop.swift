import Credentials
import Foundation
import TokenVault
import VaultCore
import VaultStorage

/// One of the vault section's timed calls made again and again, for a profiler (`--call-loop`).
///
/// The section's figures say how long a store takes beside a raw insert and a bare store; a
/// profiler says where the time goes, and needs each call on its own. So the loop fills the same
/// three databases the section does, then makes one kind of call at a time, each through a function
/// of its own (``loopedStore(_:tags:)``, ``loopedBareStore(_:_:tags:)``, ``loopedRawInsert(_:_:)``),
/// which callgrind's `--toggle-collect` and `--dump-after` name: one dump per call, so a median
/// leaves out the rare call that files the waiting index terms. PERFORMANCE.md gives the command.
enum CallLoop {
    /// What the loop calls.
    enum Kind: String, CaseIterable, Sendable {
        /// `Credential.store`, durable.
        case store
        /// ``BareTokenStore/store(_:tags:)``: the work no store skips, without the library's layers.
        case bare
        /// ``RawSQLiteFloor/insertDurably(_:)`` of a row the size of a sealed token record.
        case raw
    }

    /// How many tokens each database holds before the loop starts.
    static let filledTokens = 4_096

    /// Fills a vault, a bare store's database and a raw floor with ``filledTokens`` tokens in
    /// `directory`, then makes `count` calls of `kind`, and prints the p50 of their wall time and of
    /// the thread's CPU time.
    static func run(_ kind: Kind, count: Int, in directory: URL) throws {
        let keyFile = directory.appendingPathComponent("tokens.key")
        try KeyFile.generate(at: keyFile)
        let vault = try Vault.create(at: directory.appendingPathComponent("tokens.vault"), unlock: .keyFile(keyFile))
        try Credential.use(vault)
        let storage = try VaultTokenStorage(vault: vault)
        for start in stride(from: 0, to: filledTokens, by: VaultOperationsBenchmark.bulkBatch) {
            try storage.addAllForBenchmarking(
                TokenFixtures.stored(start..<min(start + VaultOperationsBenchmark.bulkBatch, filledTokens)))
        }
        let sealedSize = Int(try vault.tokenRecordSizesForBenchmarking().meanSealedByteCount.rounded())
        let raw = try RawSQLiteFloor(path: directory.appendingPathComponent("raw-floor.sqlite").path)
        let bare = try BareTokenStore(path: directory.appendingPathComponent("bare-store.sqlite").path)
        try raw.fill(to: filledTokens, sealedByteCount: sealedSize)
        try bare.fill(to: filledTokens, sealedByteCount: sealedSize)

        var (wall, cpu) = (LatencySamples(), LatencySamples())
        for index in filledTokens..<(filledTokens + count) {
            let token = try TokenFixtures.token(index)
            let tags = TokenFixtures.tags(index)
            let row = RawSQLiteFloor.row(sealedByteCount: sealedSize)
            let sample = try Stopwatch.timeWithCPU {
                switch kind {
                case .store: try loopedStore(token, tags: tags)
                case .bare: try loopedBareStore(bare, token, tags: tags)
                case .raw: try loopedRawInsert(raw, row)
                }
            }
            wall.append(sample.wall)
            cpu.append(sample.cpu)
        }
        print(
            "\(count) calls of \(kind.rawValue) after \(filledTokens) tokens: p50 "
                + "\(Format.duration(nanoseconds: wall.summary.p50Ns)), thread CPU "
                + Format.duration(nanoseconds: cpu.summary.p50Ns))
    }
}

// Free functions, kept out of line, so each has one symbol a profiler can name.

/// `Credential.store` of `token`.
@inline(never)
func loopedStore(_ token: Token, tags: [String: String]) throws {
    try Credential.store(token, tags: tags)
}

/// A bare store of `token` into `bare`.
@inline(never)
func loopedBareStore(_ bare: BareTokenStore, _ token: Token, tags: [String: String]) throws {
    try bare.store(token, tags: tags)
}

/// A raw durable insert of `row` into `raw`.
@inline(never)
func loopedRawInsert(_ raw: RawSQLiteFloor, _ row: [SQLiteValue]) throws {
    try raw.insertDurably(row)
}
