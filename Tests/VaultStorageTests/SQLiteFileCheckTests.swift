import Foundation
import TestSupport
import Testing
import VaultStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A vault file is checked on its path, then on the descriptor SQLite opened, before any
/// statement reads it; no descriptor of ours is ever opened on it (closing one would drop
/// SQLite's locks).
@Suite struct SQLiteFileCheckTests {
    let directory = TemporaryDirectory()

    /// A file at `name` with `contents` and the mode `mode`.
    func file(_ name: String, _ contents: String = "", mode: Int = 0o600) throws -> String {
        let path = directory.file(name).path
        _ = try SecureFile.createExclusive(path)
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        try setFileMode(mode, URL(fileURLWithPath: path))
        return path
    }

    func open(_ path: String, refusing: Bool) throws -> SQLiteDatabase {
        try SQLiteDatabase(
            path: path, mode: .readWrite, busyTimeout: .seconds(5),
            admitting: SQLiteFileCheck.vaultFile(refusingGroupOrOtherAccess: refusing))
    }

    /// The descriptor check alone (as when a loose file is put at the path after the path was
    /// checked) refuses the file, and does so before SQLite runs a statement: a file that is not
    /// a database at all fails the check, not SQLite's format check.
    @Test func aLooseFileIsRefusedOnSQLitesOwnDescriptorBeforeAnyStatement() throws {
        let path = try file("planted.db", "not a database, and readable by all", mode: 0o644)
        #expect(throws: SQLiteFileCheck.Failure.insecurePermissions) { try open(path, refusing: true) }
        #expect(throws: StorageError.self) {
            let database = try open(path, refusing: false)
            _ = try database.read { try $0.query("SELECT count(*) FROM sqlite_master") { $0.integer(0) } }
        }
    }

    @Test func aPrivateDatabaseOpensAndReads() throws {
        let path = try file("vault.db")
        let database = try open(path, refusing: true)
        try database.write { try $0.execute("CREATE TABLE t (v INTEGER)") }
        #expect(try database.read { try $0.query("SELECT count(*) FROM t") { $0.integer(0) } } == [0])
    }

    @Test func theFilesPathIsCheckedFirstSoAFifoOrFolderFailsWithoutBlocking() throws {
        let fifo = directory.file("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let refused = resultOnOwnThread(within: .seconds(60)) { () -> Bool in
            do {
                try SQLiteFileCheck.checkPath(fifo, refusingGroupOrOtherAccess: true)
                return false
            } catch {
                return error as? SQLiteFileCheck.Failure == .notARegularFile
            }
        }
        #expect(refused == true)
        #expect(throws: SQLiteFileCheck.Failure.notARegularFile) {
            try SQLiteFileCheck.checkPath(directory.url.path, refusingGroupOrOtherAccess: true)
        }
        let loose = try file("loose.db", mode: 0o640)
        #expect(throws: SQLiteFileCheck.Failure.insecurePermissions) {
            try SQLiteFileCheck.checkPath(loose, refusingGroupOrOtherAccess: true)
        }
        try SQLiteFileCheck.checkPath(loose, refusingGroupOrOtherAccess: false)
        // A missing file is SQLite's to report.
        try SQLiteFileCheck.checkPath(directory.file("none").path, refusingGroupOrOtherAccess: true)
    }
}
