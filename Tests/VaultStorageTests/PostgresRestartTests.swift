import Foundation
import TestSupport
import Testing
import VaultStorage

/// A server restart, on a server of its own: the shared one stays up for every other test.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipComment))
struct PostgresRestartTests {
    @Test func aServerRestartLosesTheConnectionAndThePoolReconnects() throws {
        let server = try PostgresTestServer()
        defer { server.stop() }
        let database = try server.makeDatabase()
        let connection = try PostgresConnection(database)
        let listener = try PostgresConnection(database)
        try listener.listen("restarts")
        let pool = try PostgresPool(database, size: 2)
        let idle = try pool.checkOut(timeout: .seconds(5))
        let borrowed = try pool.checkOut(timeout: .seconds(5))
        pool.checkIn(idle)

        try server.restart()

        let error = #expect(throws: PostgresError.self) { try connection.query("SELECT 1::int8") }
        #expect(error?.isConnectionLost == true)
        #expect(error?.sqlStateClass == "08" || error?.sqlState == "57P01")
        #expect(error.map { "\($0)" }?.contains(server.password) == false)
        #expect(!connection.isUsable)
        let waitError = #expect(throws: PostgresError.self) { try listener.nextNotification(timeout: .seconds(30)) }
        #expect(waitError?.isConnectionLost == true)

        let borrowedError = #expect(throws: PostgresError.self) { try borrowed.execute("SELECT 1") }
        #expect(borrowedError?.isConnectionLost == true)
        pool.checkIn(borrowed)
        // Both pooled connections broke; both check-outs get working replacements.
        for _ in 0..<2 {
            let value = try pool.withConnection(timeout: .seconds(5)) { try $0.queryFirst("SELECT 7::int8")?.int8(0) }
            #expect(value == 7)
        }
    }
}
