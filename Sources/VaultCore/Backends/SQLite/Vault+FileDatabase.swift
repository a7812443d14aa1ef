import VaultStorage

extension Vault {
    /// The SQLite database of a vault file (or an in-memory vault), for what only a file can do.
    ///
    /// - Parameter feature: What needs it, for the error message.
    /// - Returns: The database.
    /// - Throws: ``VaultError/invalidArgument(_:)`` when the vault is on another backend.
    func fileDatabase(for feature: String) throws -> SQLiteDatabase {
        guard let file = backend as? SQLiteVaultBackend else {
            throw VaultError.invalidArgument("\(feature) needs a vault in a SQLite file")
        }
        return file.database
    }
}
