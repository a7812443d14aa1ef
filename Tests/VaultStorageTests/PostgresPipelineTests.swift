import Foundation
import TestSupport
import Testing
import VaultStorage

/// `PostgresConnection.pipeline`: every statement in one round trip, committed together or not at all.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipComment))
struct PostgresPipelineTests {
    func connect() throws -> PostgresConnection {
        let connection = try PostgresConnection(try PostgresTestServer.shared.get().makeDatabase())
        try connection.execute("CREATE TABLE t (n int8 PRIMARY KEY)")
        return connection
    }

    func numbers(_ connection: PostgresConnection) throws -> [Int64] {
        try connection.query("SELECT n FROM t ORDER BY n").map { try $0.int8(0) }
    }

    @Test func aPipelineCommitsEveryStatementAndReturnsOnlyTheRowsAskedFor() throws {
        let connection = try connect()
        let rows = try connection.pipeline([
            PostgresStatement("INSERT INTO t (n) VALUES ($1)", [.int8(1)]),
            PostgresStatement("INSERT INTO t (n) VALUES ($1) RETURNING n", [.int8(2)]),
            PostgresStatement("INSERT INTO t (n) VALUES ($1) RETURNING n", [.int8(3)], returnsRows: true),
            // A void column, which cannot be decoded, is not asked for and does not fail the pipeline.
            PostgresStatement("SELECT pg_advisory_xact_lock(42)"),
        ])
        #expect(rows.count == 4)
        #expect(rows[1].isEmpty)
        #expect(try rows[2].map { try $0.int8(0) } == [3])
        #expect(try numbers(connection) == [1, 2, 3])
        #expect(!connection.isInTransaction)
        // The transaction-scoped lock went with the pipeline's commit.
        #expect(try connection.queryFirst("SELECT pg_try_advisory_xact_lock(42)")?.bool(0) == true)
    }

    @Test func aFailedStatementRollsBackTheOnesBeforeItAndSkipsTheRest() throws {
        let connection = try connect()
        try connection.run("INSERT INTO t (n) VALUES (1)")
        let failure = try #require(throws: PostgresPipelineFailure.self) {
            try connection.pipeline([
                PostgresStatement("INSERT INTO t (n) VALUES ($1)", [.int8(2)]),
                PostgresStatement("SELECT 1 / 0"),
                PostgresStatement("INSERT INTO t (n) VALUES ($1)", [.int8(3)]),
            ])
        }
        #expect(failure.index == 1)
        #expect(failure.error.sqlState == "22012")
        #expect(try numbers(connection) == [1])
        // The connection is out of pipeline mode and outside any transaction: it works on.
        #expect(!connection.isInTransaction)
        try connection.run("INSERT INTO t (n) VALUES (4)")
        #expect(try numbers(connection) == [1, 4])

        let duplicate = try #require(throws: PostgresPipelineFailure.self) {
            try connection.pipeline([
                PostgresStatement("INSERT INTO t (n) VALUES ($1)", [.int8(5)]),
                PostgresStatement("INSERT INTO t (n) VALUES ($1)", [.int8(4)]),
            ])
        }
        #expect(duplicate.index == 1 && duplicate.error.isUniqueViolation)
        #expect(try numbers(connection) == [1, 4])
    }

    @Test func aPipelineIsRefusedInsideATransaction() throws {
        let connection = try connect()
        try connection.transaction { db in
            #expect(throws: PostgresError.self) {
                try db.pipeline([PostgresStatement("INSERT INTO t (n) VALUES (1)")])
            }
        }
        #expect(try numbers(connection).isEmpty)
    }
}
