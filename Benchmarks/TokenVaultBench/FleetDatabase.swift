import Foundation
import TestSupport
import VaultStorage

/// Where the fleet section's vaults live, each in a new, empty schema (as a fleet's vaults share
/// one database): a throwaway local server (`PostgresTestServer`: a fresh cluster on loopback,
/// `fsync` on, stopped by its PID when the harness exits), or the server
/// `TOKENVAULT_BENCH_POSTGRES` names (a libpq `key=value` connection string, kept off the command
/// line for its password), where the section's schemas are dropped at the end.
final class FleetDatabase {
    /// The environment variable naming an external server instead of the throwaway one.
    static let environmentVariable = "TOKENVAULT_BENCH_POSTGRES"

    /// The external server's connection string, or `nil` for the throwaway server.
    private let external: String?
    /// The schemas made on the external server, dropped by ``dropSchemas()``.
    private var schemas: [String] = []

    /// What the section's header says about the server.
    let label: String

    /// The external server when the environment names one, else the throwaway server (started
    /// on first use: `initdb` and a start take a few seconds).
    ///
    /// - Throws: ``FleetFailure`` saying why no server is available.
    init() throws {
        if let connection = ProcessInfo.processInfo.environment[Self.environmentVariable] {
            external = connection
            label = "the server \(Self.environmentVariable) names"
            let admin = try PostgresConnection(PostgresConnectionString(connection))
            admin.close()
        } else {
            external = nil
            switch PostgresTestServer.shared {
            case .success(let server): label = "a throwaway local server on 127.0.0.1:\(server.port), fsync on"
            case .failure(let unavailable): throw FleetFailure("\(unavailable)")
            }
        }
    }

    /// The throwaway server's PID (`nil` for an external server): what ``CorePinning`` pins.
    var serverProcessID: pid_t? {
        guard external == nil, case .success(let server) = PostgresTestServer.shared else { return nil }
        return server.processIdentifier
    }

    /// A connection string for a new, empty schema, with the password and a `search_path` naming
    /// only that schema: where `Vault.create(postgres:)` makes a vault.
    ///
    /// - Throws: `PostgresError`, or why the throwaway server is unavailable.
    func makeVaultSchema() throws -> String {
        guard let external else { return try PostgresTestServer.makeVaultSchema() }
        let schema = "tokenvault_bench_\(UInt64.random(in: .min ... .max))"
        let admin = try PostgresConnection(PostgresConnectionString(external))
        defer { admin.close() }
        try admin.execute("CREATE SCHEMA \(schema)")
        schemas.append(schema)
        return external + " options='-c search_path=\(schema)'"
    }

    /// Drops the schemas made on the external server (the throwaway server goes away whole).
    func dropSchemas() {
        guard let external, !schemas.isEmpty,
            let admin = try? PostgresConnection(PostgresConnectionString(external))
        else { return }
        defer { admin.close() }
        for schema in schemas { try? admin.execute("DROP SCHEMA \(schema) CASCADE") }
        schemas = []
    }
}
