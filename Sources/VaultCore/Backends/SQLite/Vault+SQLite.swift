import Foundation
import VaultCrypto
import VaultStorage

/// Creating and opening a vault in one SQLite file, or in memory: the vaults a
/// ``SQLiteVaultBackend`` holds.
extension Vault {
    /// Creates a new vault file and returns it unlocked.
    ///
    /// The file is built under a temporary name and published with an atomic no-clobber link, so
    /// a crash never leaves a half-made vault at `url`. The file is 0600; missing folders are made 0700.
    /// - Parameters:
    ///   - url: Where to create it. Nothing may exist there.
    ///   - unlock: The first key slot's unlock material.
    ///   - keyDerivation: Argon2id costs for passphrase slots; `.moderate` by default.
    ///   - configuration: Settings for this process.
    /// - Returns: The unlocked vault.
    /// - Throws: ``VaultError/alreadyExists(_:)``, ``VaultError/invalidArgument(_:)`` (empty
    ///   passphrase), ``VaultError/invalidKeyFile(_:)``, ``VaultError/insecurePermissions(_:)`` (a
    ///   key file open to other users), ``VaultError/unsupportedFormat(_:)`` (costs out of bounds),
    ///   ``VaultError/storage(_:)``.
    // One parameter group a line, as the public API is documented, so the signature stays greppable.
    // swift-format-ignore
    public static func create(at url: URL, unlock: VaultUnlock,
                              keyDerivation: KeyDerivation = .moderate,
                              configuration: Vault.Configuration = .init()) throws -> Vault {
        try translatingErrors {
            let path = url.standardizedFileURL.path
            guard !FileManager.default.fileExists(atPath: path) else { throw VaultError.alreadyExists(path) }
            let (vaultID, slot, keys) = try newVault(
                unlock: unlock, keyDerivation: keyDerivation, configuration: configuration)

            let directory = url.standardizedFileURL.deletingLastPathComponent()
            try SecureFile.createDirectory(directory)
            let hex = SecureRandom.bytes(count: 8).map { String(format: "%02x", $0) }.joined()
            let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).creating-\(hex)").path
            guard try SecureFile.createExclusive(temporary) else { throw VaultError.alreadyExists(temporary) }
            defer {
                for suffix in ["", "-wal", "-shm"] { SecureFile.remove(temporary + suffix) }
            }
            do {
                let building = try SQLiteDatabase(
                    path: temporary, mode: .readWrite, busyTimeout: configuration.busyTimeout)
                try building.enableWriteAheadLog()
                try initialize(SQLiteVaultBackend(building), vaultID: vaultID, slots: [slot], keys: keys)
            }  // closing checkpoints the log into the file before it is published
            guard try SecureFile.publish(temporary, at: path) else { throw VaultError.alreadyExists(path) }
            let database = try SQLiteDatabase(path: path, mode: .readWrite, busyTimeout: configuration.busyTimeout)
            return Vault(
                backend: SQLiteVaultBackend(database), vaultID: vaultID, url: url, configuration: configuration,
                keys: keys)
        }
    }

    /// Opens and unlocks an existing vault file.
    ///
    /// - Parameters:
    ///   - url: The vault file.
    ///   - unlock: Material matching one of its key slots.
    ///   - configuration: Settings for this process.
    /// - Returns: The unlocked vault.
    /// - Throws: ``VaultError/notFound(_:)``, ``VaultError/invalidCredentials``,
    ///   ``VaultError/invalidKeyFile(_:)``, ``VaultError/unsupportedFormat(_:)`` (not a vault, a
    ///   newer format, KDF costs out of bounds), ``VaultError/integrity(_:)`` (damaged file),
    ///   ``VaultError/insecurePermissions(_:)`` (the vault or key file is open to other users;
    ///   checked before either is read, unless the configuration allows it), ``VaultError/storage(_:)``.
    // One parameter group a line, as the public API is documented, so the signature stays greppable.
    // swift-format-ignore
    public static func open(at url: URL, unlock: VaultUnlock,
                            configuration: Vault.Configuration = .init()) throws -> Vault {
        try translatingErrors {
            let path = url.standardizedFileURL.path
            guard FileManager.default.fileExists(atPath: path) else { throw VaultError.notFound(path) }
            let database = try openVaultFile(at: path, configuration: configuration)
            let material = try UnlockMaterial(
                unlock, allowsInsecurePermissions: configuration.allowsInsecurePermissions)
            let header = try database.read { try SQLiteSchema.readHeader($0) }
            try database.enableWriteAheadLog()
            if header.formatVersion == 1 { try database.write { try SQLiteSchema.addVersion2Columns($0) } }
            if header.formatVersion == 3 || header.formatVersion == 4 {
                try database.write { try SQLiteSchema.upgradeIndexedFile($0) }
            }
            let vaultID = header.vaultID
            let device = try? DeviceSecret.load(
                at: configuration.deviceSecretURL, allowsInsecurePermissions: configuration.allowsInsecurePermissions)
            let backend = SQLiteVaultBackend(database)
            let keys = try unlockRing(with: material, backend: backend, vaultID: vaultID, device: device)
            return Vault(backend: backend, vaultID: vaultID, url: url, configuration: configuration, keys: keys)
        }
    }

    /// A vault that lives only in memory, unlocked with a random master key: for tests.
    ///
    /// It has no key slot, so after ``lock()`` nothing can unlock it again; use
    /// ``inMemory(unlock:keyDerivation:configuration:)`` to test locking.
    /// - Returns: The unlocked vault.
    public static func inMemory() -> Vault {
        inMemory(configuration: .init())
    }

    /// A slotless in-memory vault with settings (auto-lock timeouts, clock, device secret).
    ///
    /// - Parameter configuration: Settings for this vault.
    /// - Returns: The unlocked vault.
    public static func inMemory(configuration: Vault.Configuration) -> Vault {
        do {
            let payload = SlotPayload(
                masterKey: SymmetricKey(randomByteCount: SubkeyDerivation.masterKeyByteCount), passcodeRoot: nil)
            return try makeInMemory(
                vaultID: SecureRandom.bytes(count: VaultFormat.idByteCount), slots: [], keys: KeyRing(payload),
                configuration: configuration)
        } catch {
            fatalError("cannot create an in-memory SQLite database: \(error)")
        }
    }

    /// A vault that lives only in memory, with one key slot, so that it can be locked and unlocked.
    ///
    /// - Parameters:
    ///   - unlock: The slot's unlock material.
    ///   - keyDerivation: Argon2id costs for a passphrase; `.interactive` by default.
    ///   - configuration: Settings for this vault.
    /// - Returns: The unlocked vault.
    /// - Throws: As ``create(at:unlock:keyDerivation:configuration:)``.
    public static func inMemory(
        unlock: VaultUnlock, keyDerivation: KeyDerivation = .interactive, configuration: Vault.Configuration = .init()
    ) throws -> Vault {
        try translatingErrors {
            let (vaultID, slot, keys) = try newVault(
                unlock: unlock, keyDerivation: keyDerivation, configuration: configuration)
            return try makeInMemory(vaultID: vaultID, slots: [slot], keys: keys, configuration: configuration)
        }
    }

    private static func makeInMemory(
        vaultID: [UInt8], slots: [KeySlot], keys: KeyRing, configuration: Configuration
    ) throws -> Vault {
        let database = try SQLiteDatabase(path: ":memory:", mode: .memory, busyTimeout: .zero)
        let backend = SQLiteVaultBackend(database)
        try initialize(backend, vaultID: vaultID, slots: slots, keys: keys)
        return Vault(backend: backend, vaultID: vaultID, url: nil, configuration: configuration, keys: keys)
    }
}
