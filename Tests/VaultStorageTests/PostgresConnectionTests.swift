import Foundation
import TestSupport
import Testing
import VaultStorage

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipComment))
struct PostgresConnectionTests {
    func connect() throws -> PostgresConnection {
        try PostgresConnection(try PostgresTestServer.shared.get().makeDatabase())
    }

    @Test func int8AndByteaRoundTripInBinary() throws {
        let connection = try connect()
        try connection.execute("CREATE TABLE t (n int8 PRIMARY KEY, b bytea)")
        var large = [UInt8](repeating: 0, count: 4 << 20)
        for index in large.indices { large[index] = UInt8.random(in: 0...255) }
        let rows: [(Int64, [UInt8])] = [
            (.min, []), (-1, [0]), (0, Array(0...255)), (1, [0x5c, 0x27, 0x00, 0x22]), (.max, large),
        ]
        for (number, bytes) in rows {
            try connection.run("INSERT INTO t (n, b) VALUES ($1, $2)", [.int8(number), .bytea(bytes)])
        }
        let read = try connection.query("SELECT n, b, octet_length(b) FROM t ORDER BY n")
        #expect(try read.map { try $0.int8(0) } == rows.map(\.0))
        #expect(try read.map { try $0.bytea(1) } == rows.map(\.1))
        // The server itself saw the right lengths, so the encoding is right, not merely symmetric.
        #expect(try read.map { try $0.int8(2) } == rows.map { Int64($0.1.count) })
        let literal = try #require(try connection.queryFirst("SELECT '\\x00ff'::bytea, 9223372036854775807::int8"))
        #expect(try literal.bytea(0) == [0x00, 0xff])
        #expect(try literal.int8(1) == .max)
    }

    @Test func anEmptyByteaIsNotNull() throws {
        let connection = try connect()
        let row = try #require(
            try connection.queryFirst("SELECT $1::bytea IS NULL, $2::bytea IS NULL", [.bytea([]), .null]))
        #expect(try row.bool(0) == false)
        #expect(try row.bool(1) == true)
    }

    @Test func textBoolAndSmallerIntegersDecode() throws {
        let connection = try connect()
        let row = try #require(
            try connection.queryFirst(
                "SELECT $1::text, true, (-5)::int2, (-70000)::int4, NULL::int8, 'x'::varchar AS label",
                [.text("héllo")]))
        #expect(row.values == [.text("héllo"), .bool(true), .int8(-5), .int8(-70_000), .null, .text("x")])
        #expect(row.value(named: "label") == .text("x"))
        #expect(row.isNull(4))
    }

    @Test func parametersAreNeverInterpolated() throws {
        let connection = try connect()
        try connection.execute("CREATE TABLE t (k text, v bytea)")
        let hostile = ["'); DROP TABLE t; --", "$1", "\\'; SELECT 1; --", "\" OR 1=1 --"]
        for text in hostile {
            try connection.run("INSERT INTO t (k, v) VALUES ($1, $2)", [.text(text), .bytea(Array(text.utf8))])
        }
        let rows = try connection.query("SELECT k, v FROM t ORDER BY k")
        #expect(try rows.map { try $0.text(0) } == hostile.sorted())
        #expect(try rows.map { try $0.bytea(1) } == hostile.sorted().map { Array($0.utf8) })
        let echoed = try #require(
            try connection.queryFirst("SELECT $1::text = $2::text", [.text("a' OR 'a'='a"), .text("b")]))
        #expect(try echoed.bool(0) == false)
    }

    @Test func aTextWithANulCharacterIsRefused() throws {
        let connection = try connect()
        let error = #expect(throws: PostgresError.self) { try connection.run("SELECT $1::text", [.text("a\u{0}b")]) }
        #expect(error?.kind == .invalidValue)
    }

    @Test func aTransactionThatThrowsLeavesNothing() throws {
        struct Abort: Error {}
        let connection = try connect()
        try connection.execute("CREATE TABLE t (n int8)")
        try connection.transaction { try $0.run("INSERT INTO t VALUES ($1)", [.int8(1)]) }
        #expect(throws: Abort.self) {
            try connection.transaction(isolation: .serializable) { connection in
                try connection.run("INSERT INTO t VALUES ($1)", [.int8(2)])
                try connection.run("UPDATE t SET n = n + 10")
                throw Abort()
            }
        }
        #expect(!connection.isInTransaction)
        #expect(try connection.query("SELECT n FROM t").map { try $0.int8(0) } == [1])
    }

    @Test func aFailedStatementCaughtInsideATransactionFailsTheCommit() throws {
        let connection = try connect()
        try connection.execute("CREATE TABLE t (n int8 PRIMARY KEY)")
        let error = #expect(throws: PostgresError.self) {
            try connection.transaction { connection in
                try connection.run("INSERT INTO t VALUES (1)")
                _ = try? connection.run("INSERT INTO t VALUES (1)")
            }
        }
        #expect(error?.sqlState == "25P02")
        #expect(try connection.query("SELECT n FROM t").isEmpty)
    }

    @Test func aTransactionInsideAnotherIsRefused() throws {
        let connection = try connect()
        let error = #expect(throws: PostgresError.self) {
            try connection.transaction { connection in try connection.transaction { _ in } }
        }
        #expect(error?.kind == .misuse)
        #expect(!connection.isInTransaction)
    }

    @Test func aUniqueViolationIsTypedAndQuotesNoValue() throws {
        let connection = try connect()
        try connection.execute("CREATE TABLE t (k text PRIMARY KEY)")
        try connection.run("INSERT INTO t VALUES ($1)", [.text("secret-key-value")])
        let error = #expect(throws: PostgresError.self) {
            try connection.run("INSERT INTO t VALUES ($1)", [.text("secret-key-value")])
        }
        #expect(error?.kind == .server)
        #expect(error?.isUniqueViolation == true)
        #expect(error?.sqlStateClass == "23")
        #expect(error?.description.contains("t_pkey") == true)
        #expect(error?.description.contains("secret-key-value") == false)
    }

    @Test func aSerializationFailureIsTyped() throws {
        let server = try PostgresTestServer.shared.get()
        let database = try server.makeDatabase()
        let first = try PostgresConnection(database)
        let second = try PostgresConnection(database)
        try first.execute("CREATE TABLE t (n int8); INSERT INTO t VALUES (0)")
        let error = #expect(throws: PostgresError.self) {
            try first.transaction(isolation: .repeatableRead) { first in
                _ = try first.query("SELECT n FROM t")
                try second.run("UPDATE t SET n = 1")
                try first.run("UPDATE t SET n = 2")
            }
        }
        #expect(error?.isSerializationFailure == true)
        #expect(error?.sqlStateClass == "40")
    }

    @Test func aStatementTimeoutComesBackAsQueryCancelled() throws {
        let connection = try connect()
        try connection.setStatementTimeout(.milliseconds(50))
        let error = #expect(throws: PostgresError.self) { try connection.run("SELECT pg_sleep(30)") }
        #expect(error?.isQueryCancelled == true)
        #expect(error?.isConnectionLost == false)
        try connection.setStatementTimeout(nil)
        #expect(try connection.queryFirst("SHOW statement_timeout")?.text(0) == "0")
        #expect(connection.isUsable)
    }

    @Test func aColumnOfAnUndecodedTypeIsATypedError() throws {
        let connection = try connect()
        let error = #expect(throws: PostgresError.self) { try connection.query("SELECT now()") }
        #expect(error?.kind == .invalidValue)
        #expect(try connection.queryFirst("SELECT now()::text") != nil)
        let row = try #require(try connection.queryFirst("SELECT 1::int8 AS n"))
        let mismatch = #expect(throws: PostgresError.self) { try row.bytea(0) }
        #expect(mismatch?.kind == .invalidValue)
    }

    @Test func aClosedConnectionRefusesWork() throws {
        let connection = try connect()
        connection.close()
        let error = #expect(throws: PostgresError.self) { try connection.execute("SELECT 1") }
        #expect(error?.kind == .closed)
        #expect(!connection.isUsable)
    }
}
