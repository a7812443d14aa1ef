import Foundation
import TestSupport
import Testing
import VaultStorage

/// A connection prepares each statement it runs once per session, as the server's own view of
/// the session (`pg_prepared_statements`) shows, and never runs a name the session does not hold.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipComment))
struct PostgresPreparedStatementTests {
    func connect() throws -> PostgresConnection {
        let connection = try PostgresConnection(try PostgresTestServer.shared.get().makeDatabase())
        try connection.execute("CREATE TABLE t (n int8 PRIMARY KEY)")
        return connection
    }

    /// The statements the server holds prepared for this session, by text.
    func prepared(_ connection: PostgresConnection) throws -> [String] {
        try connection.query("SELECT statement FROM pg_prepared_statements ORDER BY statement").map {
            try $0.text(0)
        }
    }

    @Test func aStatementRunManyTimesIsPreparedOnce() throws {
        let connection = try connect()
        for n in 1...5 { try connection.run("INSERT INTO t (n) VALUES ($1)", [.int8(Int64(n))]) }
        _ = try connection.pipeline((6...8).map { PostgresStatement("INSERT INTO t (n) VALUES ($1)", [.int8($0)]) })
        let statements = try prepared(connection)
        #expect(statements.filter { $0 == "INSERT INTO t (n) VALUES ($1)" }.count == 1)
        #expect(try connection.query("SELECT n FROM t ORDER BY n").map { try $0.int8(0) } == Array(1...8))
    }

    @Test func aStatementPreparedInARolledBackTransactionStillRuns() throws {
        let connection = try connect()
        #expect(throws: PostgresError.self) {
            try connection.transaction { db in
                try db.run("INSERT INTO t (n) VALUES ($1)", [.int8(1)])
                try db.run("INSERT INTO t (n) VALUES ($1)", [.int8(1)])
            }
        }
        try connection.run("INSERT INTO t (n) VALUES ($1)", [.int8(2)])
        #expect(try connection.query("SELECT n FROM t").map { try $0.int8(0) } == [2])
    }

    @Test func aStatementAfterAFailureInAPipelineRunsInTheNextOne() throws {
        let connection = try connect()
        let insertThree = PostgresStatement("INSERT INTO t (n) VALUES ($1) RETURNING n", [.int8(3)], returnsRows: true)
        #expect(throws: PostgresPipelineFailure.self) {
            try connection.pipeline([
                PostgresStatement("SELECT 1 / (n - n) FROM (SELECT 1::int8 AS n) AS one"), insertThree,
            ])
        }
        let rows = try connection.pipeline([insertThree])
        #expect(try rows[0].map { try $0.int8(0) } == [3])
    }

    @Test func discardingTheSessionForgetsItsStatementsAndRunsThemAgain() throws {
        let connection = try connect()
        let insert = "INSERT INTO t (n) VALUES ($1)"
        try connection.run(insert, [.int8(1)])
        #expect(try prepared(connection).contains(insert))
        try connection.discardSessionState()
        #expect(try !prepared(connection).contains(insert))
        try connection.run("INSERT INTO t (n) VALUES ($1)", [.int8(2)])
        _ = try connection.pipeline([PostgresStatement("INSERT INTO t (n) VALUES ($1)", [.int8(3)])])
        #expect(try connection.query("SELECT n FROM t ORDER BY n").map { try $0.int8(0) } == [1, 2, 3])
    }

    @Test func aSessionPreparesABoundedNumberOfStatementsAndRunsTheRestUnnamed() throws {
        let connection = try connect()
        // Statement text made on the fly: each is a new statement to the cache.
        for n in 1...140 { try connection.run("INSERT INTO t (n) VALUES (\(n))") }
        #expect(try connection.queryFirst("SELECT count(*) FROM t")?.int8(0) == 140)
        #expect(try prepared(connection).count <= 128)
    }
}
