import VaultStorage

extension VaultError {
    /// Translates a PostgreSQL error. ``PostgresError`` carries no bound value and no password, so
    /// neither does the result.
    init(_ error: PostgresError) {
        if error.isSerializationFailure || error.sqlState == "40P01" {
            self = .conflict("another writer changed the vault at the same time; nothing was written")
        } else if error.sqlState == "55P03" || error.kind == .poolTimeout {
            self = .storage("another process held the vault's lock past the busy timeout; nothing was written")
        } else if error.kind == .invalidConnectionString {
            self = .invalidArgument(error.description)
        } else {
            self = .storage(error.description)
        }
    }
}
