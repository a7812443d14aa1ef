import Foundation
import TestSupport
import Testing
import VaultStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The vault file is checked through its own descriptor, and SQLite must then open that very file:
/// a file put at the path after the check is refused.
@Suite struct PinnedFileTests {
    let directory = TemporaryDirectory()

    /// A small SQLite database at `name`, with the mode `mode`.
    func database(_ name: String, mode: Int = 0o600) throws -> String {
        let path = directory.file(name).path
        _ = try SecureFile.createExclusive(path)
        do {
            let database = try SQLiteDatabase(path: path, mode: .readWrite, busyTimeout: .seconds(5))
            try database.write { try $0.execute("CREATE TABLE t (v INTEGER)") }
        }
        try setFileMode(mode, URL(fileURLWithPath: path))
        return path
    }

    @Test func sqliteOpensThePinnedFile() throws {
        let path = try database("vault.db")
        let pinned = try PinnedFile(path: path, refusingGroupOrOtherAccess: true)
        let database = try pinned.openDatabase(busyTimeout: .seconds(5))
        #expect(database.fileIdentity == pinned.identity)
        #expect(try database.read { try $0.query("SELECT count(*) FROM t") { $0.integer(0) } } == [0])
    }

    @Test func aFileSwappedInAfterTheCheckIsRefused() throws {
        let path = try database("vault.db")
        let pinned = try PinnedFile(path: path, refusingGroupOrOtherAccess: true)
        // Another user's readable database takes the checked file's place before SQLite opens it.
        let planted = try database("planted.db", mode: 0o644)
        #expect(rename(planted, path) == 0)
        #expect(throws: PinnedFile.Failure.replaced) { try pinned.openDatabase(busyTimeout: .seconds(5)) }
    }

    @Test func aLooseFileIsRefusedAndAPrivateOneOnlyWhenAsked() throws {
        let path = try database("vault.db", mode: 0o640)
        #expect(throws: PinnedFile.Failure.insecurePermissions) {
            try PinnedFile(path: path, refusingGroupOrOtherAccess: true)
        }
        _ = try PinnedFile(path: path, refusingGroupOrOtherAccess: false)
        #expect(throws: PinnedFile.Failure.missing) {
            try PinnedFile(path: directory.file("none").path, refusingGroupOrOtherAccess: true)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aFifoOrFolderIsRefusedWithoutBlocking() throws {
        let fifo = directory.file("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: PinnedFile.Failure.notARegularFile) {
            try PinnedFile(path: fifo, refusingGroupOrOtherAccess: true)
        }
        #expect(throws: PinnedFile.Failure.notARegularFile) {
            try PinnedFile(path: directory.url.path, refusingGroupOrOtherAccess: true)
        }
    }
}
