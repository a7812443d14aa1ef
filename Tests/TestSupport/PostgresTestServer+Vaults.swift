import Foundation
import VaultStorage

extension PostgresTestServer {
    /// The database the vaults of this test process share, one schema each.
    private static let vaultDatabase = Result<String, any Error> {
        let server = try shared.get()
        let name = "tokenvault_vaults_\(UInt64.random(in: .min ... .max))"
        let admin = try PostgresConnection(server.adminConnectionString)
        defer { admin.close() }
        try admin.execute("CREATE DATABASE \(name)")
        return name
    }

    /// A libpq connection string for a new, empty schema of this process's vault database: where
    /// `Vault.create(postgres:)` makes a vault, as a fleet's vaults share one database.
    ///
    /// - Returns: The string, with the password and a `search_path` naming only the new schema.
    /// - Throws: Why the shared server or database is unavailable; ``PostgresError``.
    package static func makeVaultSchema() throws -> String {
        let server = try shared.get()
        let database = try vaultDatabase.get()
        let schema = "vault_\(UInt64.random(in: .min ... .max))"
        let base = "host=127.0.0.1 port=\(server.port) user=\(user) password=\(server.password) dbname=\(database)"
        let admin = try PostgresConnection(PostgresConnectionString(base))
        defer { admin.close() }
        try admin.execute("CREATE SCHEMA \(schema)")
        return base + " options='-c search_path=\(schema)'"
    }
}
