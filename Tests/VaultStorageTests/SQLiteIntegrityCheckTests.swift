import Foundation
import TestSupport
import Testing
import VaultStorage

/// `integrityProblems(limit:)`: SQLite's `PRAGMA integrity_check`, empty for an intact file.
@Suite struct SQLiteIntegrityCheckTests {
    let directory = TemporaryDirectory()

    /// A file with a table, a unique index and rows that fill a few pages, closed (so checkpointed).
    /// - Returns: Its path, page size and the index's root page.
    func populatedFile() throws -> (String, Int, Int) {
        let path = directory.file("db.sqlite").path
        _ = try SecureFile.createExclusive(path)
        let database = try SQLiteDatabase(path: path, mode: .readWrite, busyTimeout: .seconds(5))
        try database.enableWriteAheadLog()
        try database.write { db in
            try db.execute("CREATE TABLE t (id BLOB PRIMARY KEY, k BLOB UNIQUE, v BLOB) WITHOUT ROWID")
            for index in 0..<20 {
                try db.run(
                    "INSERT INTO t VALUES (?, ?, ?)",
                    [.blob([UInt8(index)]), .blob([UInt8](repeating: UInt8(index), count: 32)), .blob([1, 2, 3])])
            }
        }
        #expect(try database.read { try $0.integrityProblems(limit: 3) } == [])
        let pageSize = try database.read { try $0.queryFirst("PRAGMA page_size") { Int($0.integer(0)) } } ?? 0
        let root =
            try database.read {
                try $0.queryFirst("SELECT rootpage FROM sqlite_schema WHERE type = 'index'") { Int($0.integer(0)) }
            } ?? 0
        return (path, pageSize, root)
    }

    @Test func aDamagedIndexIsReportedWithinTheLimit() throws {
        let (path, pageSize, root) = try populatedFile()
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let file = try #require(FileHandle(forUpdatingAtPath: path))
        // Page 'root' ends with the row key its first index entry points to: point it elsewhere.
        try file.seek(toOffset: UInt64(root * pageSize - 1))
        let byte = try #require(try file.read(upToCount: 1)?.first)
        try file.seek(toOffset: UInt64(root * pageSize - 1))
        try file.write(contentsOf: [byte ^ 0x5a])
        try file.close()

        let database = try SQLiteDatabase(path: path, mode: .readWrite, busyTimeout: .seconds(5))
        let problems = try database.read { try $0.integrityProblems(limit: 1) }
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.contains("index") == true, "\(problems)")
    }
}
