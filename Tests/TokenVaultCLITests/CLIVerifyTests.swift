import Foundation
import TestSupport
import Testing

@Suite struct CLIVerifyTests {
    /// A flipped byte in the records' lookup index hides an item from `secret get`, while every
    /// sealed record is intact: `verify` reports the damaged structure with the integrity exit status.
    @Test func damagedDatabaseStructureIsAnIntegrityFailure() throws {
        let vault = try CLIVault()
        for index in 0..<5 {
            try vault.run(["secret", "set", "name-\(index)"], input: "value-\(index)").expectSuccess()
        }
        try vault.run(["verify"]).expectSuccess()
        let url = URL(fileURLWithPath: vault.path)
        let (pageSize, indexRoot): (Int64, Int64)
        do {
            // The last connection to close checkpoints the log into the file.
            let raw = try RawVaultFile(url)
            pageSize = try #require(try raw.integer("PRAGMA page_size"))
            indexRoot = try #require(
                try raw.integer("SELECT rootpage FROM sqlite_schema WHERE tbl_name = 'records' AND sql IS NULL"))
        }
        #expect(!FileManager.default.fileExists(atPath: vault.path + "-wal"))
        let file = try FileHandle(forUpdating: url)
        try file.seek(toOffset: UInt64(indexRoot * pageSize - 1))
        let byte = try #require(try file.read(upToCount: 1)?.first)
        try file.seek(toOffset: UInt64(indexRoot * pageSize - 1))
        try file.write(contentsOf: [byte ^ 0x5a])
        try file.close()

        let result = try vault.run(["verify"])
        #expect(result.status == 7, "exit \(result.status): \(result.stderr)")
        #expect(result.stderr.hasPrefix("tokenvault: Integrity check failed: the database structure is damaged"))
        #expect(result.stdout.isEmpty)
        for index in 0..<5 { #expect(!result.stderr.contains("value-\(index)")) }
    }
}
