import Foundation
import TestSupport
import Testing
import TokenVault
import VaultStorage

/// Bytes on disk: the write-ahead log stays bounded while a vault is open and is emptied after bulk
/// work, and sealed records are not spread over mostly empty pages.
@Suite struct VaultLogSizeTests {
    let directory = TemporaryDirectory()
    /// The `kind` column of key-value items.
    static let keyValueItemKind: Int64 = 1

    static func size(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    /// The vault file, its log and its shared-memory index.
    static func bytesOnDisk(_ url: URL) -> Int {
        ["", "-wal", "-shm"].map { size(url.path + $0) }.reduce(0, +)
    }

    /// 1 KiB that does not compress.
    static func randomValue() -> Data {
        Data((0..<1_024).map { _ in UInt8.random(in: 0...255) })
    }

    static func meanSealedBytes(_ url: URL, kind: Int64) throws -> Double {
        let sealed = try RawVaultFile(url).records().filter { $0.kind == kind }.map(\.sealed.count)
        return Double(sealed.reduce(0, +)) / Double(max(sealed.count, 1))
    }

    /// Each secret adds at most 1.5 times its sealed bytes to the files, and the log never passes its
    /// limit while the vault stays open. The bytes every vault has (one page per table and index,
    /// 128 KiB at 16 KiB a page) are left out: they are 0.09 times a sealed secret at 1,000 secrets.
    @Test func aThousandSecretsEachAddAtMostOneAndAHalfTimesTheirSealedBytes() throws {
        let (vault, url, _) = try TestVaults.keyFileVault(in: directory)
        let empty = Self.size(url.path)
        var largestLog = 0
        for index in 0..<1_000 {
            try vault.set(Self.randomValue(), for: SecretKey<Data>("secret-\(index)"))
            largestLog = max(largestLog, Self.size(url.path + "-wal"))
        }
        #expect(largestLog <= SQLiteConnection.logSizeLimit)
        vault.close()
        let perSecret = Double(Self.bytesOnDisk(url) - empty) / 1_000
        let sealed = try Self.meanSealedBytes(url, kind: Self.keyValueItemKind)
        #expect(sealed > 1_024)
        #expect(perSecret <= 1.5 * sealed, "\(perSecret) bytes on disk per secret of \(sealed) sealed bytes")
    }

    @Test func aKeyRotationLeavesAnEmptyLog() throws {
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        for index in 0..<100 {
            try vault.set(Self.randomValue(), for: SecretKey<Data>("secret-\(index)"))
        }
        let next = directory.file("next.key")
        try KeyFile.generate(at: next)
        try vault.changeUnlock(from: .keyFile(keyFile), to: .keyFile(next))
        #expect(Self.size(url.path + "-wal") == 0)
        #expect(try vault.get(SecretKey<Data>("secret-99"))?.count == 1_024)
    }

    @Test func migratingAFormatVersion1VaultLeavesAnEmptyLog() throws {
        let url = try Fixtures.copy("format-v1.vault", to: directory)
        let keyFile = try Fixtures.copy("format-v1.key", to: directory)
        let vault = try Vault.open(at: url, unlock: .keyFile(keyFile))
        #expect(try vault.verify().formatVersion == 2)
        #expect(Self.size(url.path + "-wal") == 0)
    }

    @Test func compactLogWhileAnotherConnectionHoldsTheFileDoesNotFail() throws {
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        let other = try Vault.open(at: url, unlock: .keyFile(keyFile))
        for index in 0..<20 { try vault.set(index, for: SecretKey<Int>("n-\(index)")) }
        #expect(try vault.compactLog())
        #expect(Self.size(url.path + "-wal") == 0)
        try other.set(20, for: SecretKey<Int>("n-20"))
        vault.close()
        #expect(throws: VaultError.self) { try vault.get(SecretKey<Int>("n-0")) }
        #expect(try other.get(SecretKey<Int>("n-19")) == 19)
        #expect(try other.compactLog())
        other.close()
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: url.path + "-shm"))
        let reopened = try Vault.open(at: url, unlock: .keyFile(keyFile))
        #expect(try reopened.get(SecretKey<Int>("n-20")) == 20)
    }
}
