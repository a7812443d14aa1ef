import Foundation
import TestSupport
import Testing
import VaultStorage

@Suite struct SQLiteDatabaseTests {
    let directory = TemporaryDirectory()

    func database(_ name: String = "db.sqlite", timeout: Duration = .seconds(5)) throws -> SQLiteDatabase {
        let path = directory.file(name).path
        _ = try SecureFile.createExclusive(path)
        let database = try SQLiteDatabase(path: path, mode: .readWrite, busyTimeout: timeout)
        try database.enableWriteAheadLog()
        return database
    }

    @Test func writeCommitsOnReturnAndRollsBackOnThrow() throws {
        struct Abort: Error {}
        let db = try database()
        try db.write { try $0.execute("CREATE TABLE t (v INTEGER)") }
        try db.write { try $0.run("INSERT INTO t VALUES (?)", [.integer(1)]) }
        #expect(throws: Abort.self) {
            try db.write { conn in
                try conn.run("INSERT INTO t VALUES (?)", [.integer(2)])
                throw Abort()
            }
        }
        let values = try db.read { try $0.query("SELECT v FROM t") { $0.integer(0) } }
        #expect(values == [1])
    }

    @Test func bindsAndReadsEveryValueType() throws {
        let db = try database()
        try db.write { conn in
            try conn.execute("CREATE TABLE t (i INTEGER, b BLOB, s TEXT, n BLOB)")
            try conn.run(
                "INSERT INTO t VALUES (?, ?, ?, ?)", [.integer(-7), .blob([0, 1, 255]), .text("héllo"), .null])
            try conn.run("INSERT INTO t VALUES (?, ?, ?, ?)", [.integer(0), .blob([]), .text(""), .null])
        }
        let rows = try db.read { conn in
            try conn.query("SELECT i, b, s, n FROM t ORDER BY i") {
                ($0.integer(0), $0.blob(1), $0.text(2), $0.isNull(3))
            }
        }
        #expect(rows.count == 2)
        #expect(rows[0].0 == -7 && rows[0].1 == [0, 1, 255] && rows[0].2 == "héllo" && rows[0].3)
        #expect(rows[1].1 == [] && rows[1].2 == "")
    }

    @Test func aSecondWriterTimesOutAsBusy() throws {
        let first = try database(timeout: .seconds(5))
        let second = try SQLiteDatabase(
            path: directory.file("db.sqlite").path, mode: .readWrite, busyTimeout: .milliseconds(50))
        try first.write { try $0.execute("CREATE TABLE t (v INTEGER)") }
        let error: StorageError? = try first.write { _ in
            do {
                try second.write { try $0.run("INSERT INTO t VALUES (1)") }
                return nil
            } catch let error as StorageError {
                return error
            }
        }
        #expect(error?.isBusy == true)
    }

    @Test func pageLimitFailsLikeAFullDiskAndKeepsThePreviousState() throws {
        let db = try database()
        try db.write { conn in
            try conn.execute("CREATE TABLE t (v BLOB)")
            try conn.run("INSERT INTO t VALUES (?)", [.blob([1, 2, 3])])
        }
        try db.write { try $0.limitPageCount(to: 3) }
        var full: StorageError?
        do {
            try db.write { try $0.run("INSERT INTO t VALUES (?)", [.blob([UInt8](repeating: 7, count: 100_000))]) }
        } catch let error as StorageError {
            full = error
        }
        #expect(full?.isFull == true)
        #expect(try db.read { try $0.query("SELECT v FROM t") { $0.blob(0) } } == [[1, 2, 3]])
    }

    @Test func aFileThatIsNotADatabaseIsReportedAsSuch() throws {
        let path = directory.file("garbage").path
        try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: path))
        var caught: StorageError?
        do {
            let db = try SQLiteDatabase(path: path, mode: .readWrite, busyTimeout: .seconds(1))
            try db.read { _ = try $0.queryFirst("PRAGMA application_id") { $0.integer(0) } }
        } catch let error as StorageError {
            caught = error
        }
        #expect(caught?.isNotADatabase == true)
    }

    @Test func openingAMissingFileWithoutCreateFails() {
        #expect(throws: StorageError.self) {
            try SQLiteDatabase(path: directory.file("missing").path, mode: .readWrite, busyTimeout: .seconds(1))
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("missing").path))
    }
}

@Suite struct SecureFileTests {
    let directory = TemporaryDirectory()

    @Test func exclusiveCreateIs0600AndNeverClobbers() throws {
        let url = directory.file("file")
        #expect(try SecureFile.createExclusive(url.path))
        #expect(try fileMode(url) == 0o600)
        #expect(try !SecureFile.createExclusive(url.path))
    }

    @Test func directoriesAre0700() throws {
        let url = directory.file("a/b/c")
        try SecureFile.createDirectory(url)
        #expect(try fileMode(url) == 0o700)
        #expect(try fileMode(directory.file("a")) == 0o700)
    }

    @Test func publishLinksWithoutReplacing() throws {
        let source = directory.file("source")
        let target = directory.file("target")
        try [UInt8]([1, 2, 3]).withUnsafeBytes { try SecureFile.writeNew($0, to: source.path) }
        #expect(try SecureFile.publish(source.path, at: target.path))
        #expect(try !SecureFile.publish(source.path, at: target.path))
        #expect(try Data(contentsOf: target) == Data([1, 2, 3]))
    }

    @Test func boundedReadsRefuseShortAndLongFiles() throws {
        let url = directory.file("key")
        try [UInt8](repeating: 9, count: 40).withUnsafeBytes { try SecureFile.writeNew($0, to: url.path) }
        let read = try SecureFile.readBounded(at: url.path, minimumByteCount: 32, maximumByteCount: 64) { count, fill in
            var buffer = [UInt8](repeating: 0, count: count)
            try buffer.withUnsafeMutableBytes { try fill($0) }
            return buffer
        }
        #expect(read == [UInt8](repeating: 9, count: 40))
        #expect(throws: SecureFile.ReadError.self) {
            try SecureFile.readBounded(at: url.path, minimumByteCount: 41, maximumByteCount: 64) { _, _ in 0 }
        }
        #expect(throws: SecureFile.ReadError.self) {
            try SecureFile.readBounded(at: url.path, minimumByteCount: 1, maximumByteCount: 39) { _, _ in 0 }
        }
        #expect(throws: SecureFile.ReadError.self) {
            try SecureFile.readBounded(at: directory.file("none").path, minimumByteCount: 1, maximumByteCount: 39) {
                _, _ in 0
            }
        }
    }
}
