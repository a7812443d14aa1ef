import Foundation
import Locking
import TestSupport
import Testing
import VaultStorage

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipComment))
struct PostgresPoolTests {
    @Test func aFullPoolWaitsThenTimesOutAndReusesAReturnedConnection() throws {
        let pool = try PostgresPool(try PostgresTestServer.shared.get().makeDatabase(), size: 1)
        let first = try pool.checkOut(timeout: .seconds(5))
        let serverProcess = first.serverProcessID
        let error = #expect(throws: PostgresError.self) { try pool.checkOut(timeout: .milliseconds(50)) }
        #expect(error?.kind == .poolTimeout)
        pool.checkIn(first)
        let again = try pool.checkOut(timeout: .seconds(5))
        #expect(again.serverProcessID == serverProcess)
        pool.checkIn(again)
    }

    @Test func aReturnedConnectionCarriesNoSessionState() throws {
        let pool = try PostgresPool(try PostgresTestServer.shared.get().makeDatabase(), size: 1)
        try pool.withConnection(timeout: .seconds(5)) { connection in
            try connection.setStatementTimeout(.seconds(3))
            try connection.listen("left over")
            try connection.execute("BEGIN")
        }
        let connection = try pool.checkOut(timeout: .seconds(5))
        defer { pool.checkIn(connection) }
        #expect(!connection.isInTransaction)
        #expect(try connection.queryFirst("SHOW statement_timeout")?.text(0) == "0")
        #expect(try connection.query("SELECT pg_listening_channels()").isEmpty)
    }

    @Test func threadsShareThePool() throws {
        let database = try PostgresTestServer.shared.get().makeDatabase()
        let pool = try PostgresPool(database, size: 2)
        try pool.withConnection(timeout: .seconds(5)) { try $0.execute("CREATE TABLE t (n int8)") }
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for step in 0..<20 {
                do {
                    try pool.withConnection(timeout: .seconds(30)) { connection in
                        try connection.run("INSERT INTO t VALUES ($1)", [.int8(Int64(worker * 100 + step))])
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.value == [])
        let count = try pool.withConnection(timeout: .seconds(5)) { try $0.queryFirst("SELECT count(*) FROM t") }
        #expect(try count?.int8(0) == 80)
    }

    @Test func aClosedPoolRefusesCheckOuts() throws {
        let pool = try PostgresPool(try PostgresTestServer.shared.get().makeDatabase(), size: 2)
        let out = try pool.checkOut(timeout: .seconds(5))
        pool.close()
        pool.checkIn(out)
        #expect(!out.isUsable)
        let error = #expect(throws: PostgresError.self) { try pool.checkOut(timeout: .seconds(1)) }
        #expect(error?.kind == .closed)
    }

    @Test func aPoolNeedsAtLeastOneConnection() throws {
        let string = try PostgresConnectionString("host=127.0.0.1")
        let error = #expect(throws: PostgresError.self) { try PostgresPool(string, size: 0) }
        #expect(error?.kind == .misuse)
    }
}
