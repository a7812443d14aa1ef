import VaultStorage

extension Vault {
    /// Opens the database of an existing vault file, checked on its path and then on the
    /// descriptor SQLite opened, before any statement reads it (see ``SQLiteFileCheck``): refused when it is not a regular file,
    /// or when its mode grants its group or others any permission, unless the configuration
    /// allows that.
    ///
    /// - Throws: ``VaultError/insecurePermissions(_:)``, ``VaultError/unsupportedFormat(_:)`` (not
    ///   a regular file), and what SQLite's errors translate to.
    static func openVaultFile(at path: String, configuration: Configuration) throws -> SQLiteDatabase {
        let refusing = !configuration.allowsInsecurePermissions
        do {
            try SQLiteFileCheck.checkPath(path, refusingGroupOrOtherAccess: refusing)
            return try SQLiteDatabase(
                path: path, mode: .readWrite, busyTimeout: configuration.busyTimeout,
                admitting: SQLiteFileCheck.vaultFile(refusingGroupOrOtherAccess: refusing))
        } catch SQLiteFileCheck.Failure.insecurePermissions {
            throw VaultError.insecurePermissions(path)
        } catch SQLiteFileCheck.Failure.notARegularFile {
            throw VaultError.unsupportedFormat("\(path) is not a regular file")
        }
    }
}
