import Foundation
import TestSupport
import Testing
import VaultStorage

/// A connection string can hold a password: no error or description may show it.
@Suite struct PostgresSecretTests {
    static let password = "hunter2-\(UInt64.random(in: .min ... .max))"

    @Test func theConnectionStringDescriptionMasksThePassword() throws {
        let keywords = try PostgresConnectionString(
            "host=127.0.0.1 user=alice password='\(Self.password)' dbname=vault")
        #expect(
            Set(keywords.description.split(separator: " ")) == [
                "host=127.0.0.1", "user=alice", "dbname=vault", "password=***",
            ])
        let uri = try PostgresConnectionString("postgresql://alice:\(Self.password)%40x@127.0.0.1:5432/vault")
        #expect(!uri.description.contains(Self.password))
        #expect(uri.description.contains("password=***"))
        var dumped = ""
        dump(keywords, to: &dumped)
        #expect(!dumped.contains(Self.password))
        #expect(!String(reflecting: uri).contains(Self.password))
        #expect(uri.scrubbed("a \(Self.password)@x and \(Self.password)%40x") == "a *** and ***")
    }

    @Test func aMalformedConnectionStringIsNotQuoted() throws {
        for string in [
            "host=127.0.0.1 password=\(Self.password) \(Self.password)",
            "postgresql://alice:\(Self.password)@127.0.0.1/vault?\(Self.password)%zz",
            "host=127.0.0.1 \(Self.password)=x",
        ] {
            let error = #expect(throws: PostgresError.self) { try PostgresConnectionString(string) }
            #expect(error?.kind == .invalidConnectionString)
            #expect(error.map { "\($0)" }?.contains(Self.password) == false)
        }
    }

    @Test func aFailedConnectNeverShowsThePassword() throws {
        let string = try PostgresConnectionString(
            "postgresql://alice:\(Self.password)@127.0.0.1:1/vault?connect_timeout=2")
        let error = #expect(throws: PostgresError.self) { try PostgresConnection(string, connectTimeout: .seconds(2)) }
        #expect(error?.kind == .cannotConnect)
        #expect(error?.sqlStateClass == "08")
        #expect(error.map { "\($0)" }?.contains(Self.password) == false)
    }

    @Test(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipComment))
    func aWrongPasswordNeverShowsThePassword() throws {
        let server = try PostgresTestServer.shared.get()
        let string = try server.adminConnectionString.setting("password", to: Self.password)
        let error = #expect(throws: PostgresError.self) { try PostgresConnection(string) }
        #expect(error?.kind == .cannotConnect)
        #expect(error?.message.contains("password authentication failed") == true)
        #expect(error.map { "\($0)" }?.contains(Self.password) == false)
        #expect(!"\(string)".contains(Self.password))
    }

    @Test(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipComment))
    func aServerMessageQuotingThePasswordIsMasked() throws {
        let server = try PostgresTestServer.shared.get()
        let connection = try PostgresConnection(server.makeDatabase())
        let error = #expect(throws: PostgresError.self) { try connection.query("SELECT * FROM \"\(server.password)\"") }
        #expect(error?.sqlState == "42P01")
        #expect(error?.message.contains("***") == true)
        #expect(error.map { "\($0)" }?.contains(server.password) == false)
    }

    @Test(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipComment))
    func aDataExceptionDoesNotQuoteTheInput() throws {
        let connection = try PostgresConnection(try PostgresTestServer.shared.get().makeDatabase())
        let error = #expect(throws: PostgresError.self) {
            try connection.query("SELECT $1::int8", [.text(Self.password)])
        }
        #expect(error?.sqlStateClass == "22")
        #expect(error.map { "\($0)" }?.contains(Self.password) == false)
    }
}
