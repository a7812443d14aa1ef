import VaultCrypto

/// Creating and opening a vault that a fleet shares in PostgreSQL: the vaults a
/// ``PostgresVaultBackend`` holds. The same key slots, rows, associated data, digests, policies
/// and errors as a vault file; the server sees sealed bytes and keyed hashes only.
extension Vault {
    /// Creates a new vault in the connection's schema and returns it unlocked.
    ///
    /// The tables and the first key slot are written in one transaction: another process sees no
    /// vault or a whole one. The schema must exist; each schema holds one vault, picked by the
    /// connection string's `search_path` (`options='-c search_path=team_a'`), `public` by default.
    /// - Parameters:
    ///   - connection: A libpq connection string. Its password never appears in an error.
    ///   - unlock: The first key slot's unlock material.
    ///   - keyDerivation: Argon2id costs for passphrase slots; `.moderate` by default.
    ///   - configuration: Settings for this process; `busyTimeout` bounds the waits for a
    ///     connection and for the write lock.
    /// - Returns: The unlocked vault.
    /// - Throws: ``VaultError/alreadyExists(_:)`` (the schema holds a vault),
    ///   ``VaultError/invalidArgument(_:)`` (empty passphrase, a connection string libpq cannot parse,
    ///   no schema on the path), ``VaultError/invalidKeyFile(_:)``,
    ///   ``VaultError/insecurePermissions(_:)`` (a key file open to other users),
    ///   ``VaultError/unsupportedFormat(_:)`` (costs out of bounds), ``VaultError/storage(_:)`` (the
    ///   server cannot be reached or failed; nothing was written).
    // One parameter group a line, as the public API is documented, so the signature stays greppable.
    // swift-format-ignore
    public static func create(postgres connection: String, unlock: VaultUnlock,
                              keyDerivation: KeyDerivation = .moderate,
                              configuration: Vault.Configuration = .init()) throws -> Vault {
        try translatingErrors {
            let (vaultID, slot, keys) = try newVault(
                unlock: unlock, keyDerivation: keyDerivation, configuration: configuration)
            let backend = try PostgresVaultBackend(connectionString: connection, configuration: configuration)
            do {
                try initialize(backend, vaultID: vaultID, slots: [slot], keys: keys)
            } catch {
                backend.close()
                throw error
            }
            return Vault(backend: backend, vaultID: vaultID, url: nil, configuration: configuration, keys: keys)
        }
    }

    /// Opens and unlocks the vault in the connection's schema, migrating its tables first when this
    /// library knows a later version of them.
    ///
    /// - Parameters:
    ///   - connection: A libpq connection string; its `search_path` picks the vault's schema. Its
    ///     password never appears in an error.
    ///   - unlock: Material matching one of its key slots.
    ///   - configuration: Settings for this process.
    /// - Returns: The unlocked vault.
    /// - Throws: ``VaultError/notFound(_:)`` (no vault in the schema),
    ///   ``VaultError/invalidCredentials``, ``VaultError/invalidKeyFile(_:)``,
    ///   ``VaultError/unsupportedFormat(_:)`` (a newer format or schema, KDF costs out of bounds),
    ///   ``VaultError/integrity(_:)``, ``VaultError/invalidArgument(_:)``, ``VaultError/storage(_:)``.
    // One parameter group a line, as the public API is documented, so the signature stays greppable.
    // swift-format-ignore
    public static func open(postgres connection: String, unlock: VaultUnlock,
                            configuration: Vault.Configuration = .init()) throws -> Vault {
        try translatingErrors {
            let material = try UnlockMaterial(
                unlock, allowsInsecurePermissions: configuration.allowsInsecurePermissions)
            let backend = try PostgresVaultBackend(connectionString: connection, configuration: configuration)
            do {
                try backend.migrate()
                let header = try backend.read { try $0.header() }
                let device = try? DeviceSecret.load(
                    at: configuration.deviceSecretURL,
                    allowsInsecurePermissions: configuration.allowsInsecurePermissions)
                let keys = try unlockRing(with: material, backend: backend, vaultID: header.vaultID, device: device)
                return Vault(
                    backend: backend, vaultID: header.vaultID, url: nil, configuration: configuration, keys: keys)
            } catch {
                backend.close()
                throw error
            }
        }
    }
}
