import Foundation
import TokenVault
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
        try shared.get().makeVaultSchema(inDatabase: try vaultDatabase.get())
    }

    /// A libpq connection string for a new, empty schema of a database of this server.
    ///
    /// - Parameter database: The database; `postgres` by default.
    /// - Returns: The string, with the password and a `search_path` naming only the new schema.
    /// - Throws: ``PostgresError``.
    package func makeVaultSchema(inDatabase database: String = "postgres") throws -> String {
        let schema = "vault_\(UInt64.random(in: .min ... .max))"
        let base = "host=127.0.0.1 port=\(port) user=\(Self.user) password=\(password) dbname=\(database)"
        let admin = try PostgresConnection(PostgresConnectionString(base))
        defer { admin.close() }
        try admin.execute("CREATE SCHEMA \(schema)")
        return base + " options='-c search_path=\(schema)'"
    }
}

extension PostgresTestServer {
    /// Writes `connection` to a `.pgconn` file (0600) in `directory`: how a `VaultTestWorker`
    /// process is told which vault in PostgreSQL to open, without the password on its command line.
    ///
    /// - Parameters:
    ///   - connection: A libpq connection string.
    ///   - directory: Where the file goes.
    /// - Returns: The file, to pass where a worker takes a vault file.
    package static func connectionFile(_ connection: String, in directory: URL) -> URL {
        let file = directory.appendingPathComponent("vault-\(UUID().uuidString).pgconn")
        _ = FileManager.default.createFile(
            atPath: file.path, contents: Data(connection.utf8), attributes: [.posixPermissions: 0o600])
        return file
    }
}

extension PostgresTestServer {
    /// A vault in PostgreSQL unlocked by a new key file, as ``TestVaults/keyFileVault(in:)`` makes a
    /// vault file, for tests whose worker processes open it too.
    ///
    /// - Parameters:
    ///   - directory: Where the key file and the `.pgconn` file go.
    ///   - connection: The schema to create it in; a new schema of the shared server by default.
    /// - Returns: The vault, its connection string, the `.pgconn` file a worker opens it by, and the key file.
    /// - Throws: Why the server is unavailable; ``PostgresError``; what `Vault.create(postgres:)` throws.
    package static func keyFileVault(
        in directory: TemporaryDirectory, connection: String? = nil
    ) throws -> (vault: Vault, connection: String, workerPath: URL, keyFile: URL) {
        let keyFile = directory.file("vault.key")
        try KeyFile.generate(at: keyFile)
        let connection = try connection ?? makeVaultSchema()
        let vault = try Vault.create(
            postgres: connection, unlock: .keyFile(keyFile), keyDerivation: TestVaults.fastKeyDerivation)
        return (vault, connection, connectionFile(connection, in: directory.url), keyFile)
    }
}

extension PostgresTestServer {
    /// A `postgresql://` URL (user, password, 127.0.0.1, port) for a new, empty database of the
    /// shared server: what a user passes to `tokenvault --vault`.
    ///
    /// - Returns: The URL and the password it holds, so a test can check the password is never shown.
    /// - Throws: Why the shared server is unavailable; ``PostgresError``.
    package static func makeDatabaseURL() throws -> (url: String, password: String) {
        let server = try shared.get()
        let name = "tokenvault_cli_\(UInt64.random(in: .min ... .max))"
        let admin = try PostgresConnection(server.adminConnectionString)
        defer { admin.close() }
        try admin.execute("CREATE DATABASE \(name)")
        return ("postgresql://\(user):\(server.password)@127.0.0.1:\(server.port)/\(name)", server.password)
    }
}
