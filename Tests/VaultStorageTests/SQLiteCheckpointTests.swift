import Foundation
import TestSupport
import Testing
import VaultStorage

/// The write-ahead log stays bounded, checkpoints never fail because another connection is busy,
/// and closing the last connection leaves only the database file.
@Suite struct SQLiteCheckpointTests {
    let directory = TemporaryDirectory()
    var path: String { directory.file("db.sqlite").path }

    func database(create: Bool = true) throws -> SQLiteDatabase {
        if create { _ = try SecureFile.createExclusive(path) }
        let database = try SQLiteDatabase(path: path, mode: .readWrite, busyTimeout: .seconds(5))
        try database.enableWriteAheadLog()
        return database
    }

    func size(_ suffix: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int) ?? nil
    }

    func insert(_ count: Int, into db: SQLiteDatabase) throws {
        for _ in 0..<count {
            try db.write { try $0.run("INSERT INTO t VALUES (randomblob(16), randomblob(1400))") }
        }
    }

    func rowCount(_ db: SQLiteDatabase) throws -> Int64 {
        try db.read { try $0.queryFirst("SELECT count(*) FROM t") { $0.integer(0) } } ?? -1
    }

    @Test func theLogStaysUnderItsLimitWhileAConnectionKeepsWriting() throws {
        let db = try database()
        try db.write { try $0.execute("CREATE TABLE t (id BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID") }
        var largest = 0
        for _ in 0..<300 {
            try insert(1, into: db)
            largest = max(largest, size("-wal") ?? 0)
        }
        #expect(largest > 0)
        #expect(largest <= SQLiteConnection.logSizeLimit)
    }

    @Test func aCheckpointWhileAnotherConnectionReadsDoesNotFailAndLosesNothing() throws {
        let writer = try database()
        try writer.write { try $0.execute("CREATE TABLE t (id BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID") }
        try insert(10, into: writer)
        let reader = try SQLiteDatabase(path: path, mode: .readWrite, busyTimeout: .seconds(5))
        let (seenBefore, emptied, seenAfter) = try reader.read { db in
            let before = try db.queryFirst("SELECT count(*) FROM t") { $0.integer(0) }
            try insert(10, into: writer)
            let emptied = try writer.checkpoint()
            let after = try db.queryFirst("SELECT count(*) FROM t") { $0.integer(0) }
            return (before, emptied, after)
        }
        #expect(!emptied)
        #expect(seenBefore == 10 && seenAfter == 10)
        #expect(try rowCount(writer) == 20)
        #expect(try writer.checkpoint())
        #expect(size("-wal") == 0)
        #expect(try rowCount(reader) == 20)
    }

    @Test func closingWhileAnotherConnectionReadsDoesNotFailAndLosesNothing() throws {
        let writer = try database()
        try writer.write { try $0.execute("CREATE TABLE t (id BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID") }
        let reader = try SQLiteDatabase(path: path, mode: .readWrite, busyTimeout: .seconds(5))
        let seen = try reader.read { db in
            _ = try db.queryFirst("SELECT count(*) FROM t") { $0.integer(0) }
            try insert(10, into: writer)
            writer.close()
            return try db.queryFirst("SELECT count(*) FROM t") { $0.integer(0) }
        }
        #expect(seen == 0)
        #expect(try rowCount(reader) == 10)
        #expect(throws: StorageError.closed) { try rowCount(writer) }
        reader.close()
        #expect(try rowCount(try database(create: false)) == 10)
    }

    @Test func closingTheLastConnectionLeavesOnlyTheDatabaseFile() throws {
        let db = try database()
        try db.write { try $0.execute("CREATE TABLE t (id BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID") }
        try insert(20, into: db)
        #expect(size("-wal") != nil && size("-shm") != nil)
        db.close()
        #expect(size("-wal") == nil && size("-shm") == nil)
        #expect(try rowCount(try database(create: false)) == 20)
    }

    @Test func recordsOfAFewKilobytesStayInTheirPage() throws {
        let db = try database()
        try db.write { try $0.execute("CREATE TABLE t (id BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID") }
        try insert(300, into: db)
        db.close()
        let bytesPerRow = Double(size("") ?? 0) / 300
        #expect(bytesPerRow < 1.5 * 1416)
    }
}
