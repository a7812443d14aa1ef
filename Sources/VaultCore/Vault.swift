import Foundation
import Locking
import VaultCrypto
import VaultStorage

/// An encrypted vault in one SQLite file: key slots, sealed records, and an integrity digest.
///
/// Every record is sealed with XChaCha20-Poly1305 under a key derived from a random master key; the
/// master key is wrapped in key slots opened by a passphrase (Argon2id), a key file, or both. All
/// methods are safe to call from many tasks at once, and several processes may share one file.
///
/// ```swift
/// let vault = try Vault.create(at: url, unlock: .passphrase("correct horse battery staple"))
/// try vault.set("sk_live_...", for: SecretKey<String>("stripe"))
/// ```
public final class Vault: Sendable {
    let database: SQLiteDatabase
    let vaultID: [UInt8]
    /// The file, or `nil` for an in-memory vault.
    public let url: URL?
    let configuration: Configuration
    let session = Locked(VaultSession())
    let device = Locked<DeviceSecret?>(nil)
    let autoLockTimer = Locked<Task<Void, Never>?>(nil)

    init(database: SQLiteDatabase, vaultID: [UInt8], url: URL?, configuration: Configuration, keys: KeyRing) {
        self.database = database
        self.vaultID = vaultID
        self.url = url
        self.configuration = configuration
        startSession(keys)
        Self.startAutoLockTimer(for: self)
    }

    deinit {
        autoLockTimer.withLock { $0?.cancel() }
    }

    // MARK: Creating and opening

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
    // Laid out as in API.md, so the contract's signature stays greppable.
    // swift-format-ignore
    public static func create(at url: URL, unlock: VaultUnlock,
                              keyDerivation: KeyDerivation = .moderate,
                              configuration: Vault.Configuration = .init()) throws -> Vault {
        try translatingErrors {
            let path = url.standardizedFileURL.path
            guard !FileManager.default.fileExists(atPath: path) else { throw VaultError.alreadyExists(path) }
            let material = try UnlockMaterial(
                unlock, allowsInsecurePermissions: configuration.allowsInsecurePermissions)
            try material.checkStrength()
            let payload = newVaultPayload(for: material)
            let vaultID = SecureRandom.bytes(count: VaultFormat.idByteCount)
            let slot = try KeySlot.make(
                wrapping: payload, with: material, keyDerivation: keyDerivation, vaultID: vaultID)
            let keys = try KeyRing(payload)

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
                try initialize(building, vaultID: vaultID, slots: [slot], keys: keys)
            }  // closing checkpoints the log into the file before it is published
            guard try SecureFile.publish(temporary, at: path) else { throw VaultError.alreadyExists(path) }
            let database = try SQLiteDatabase(path: path, mode: .readWrite, busyTimeout: configuration.busyTimeout)
            return Vault(database: database, vaultID: vaultID, url: url, configuration: configuration, keys: keys)
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
    // Laid out as in API.md, so the contract's signature stays greppable.
    // swift-format-ignore
    public static func open(at url: URL, unlock: VaultUnlock,
                            configuration: Vault.Configuration = .init()) throws -> Vault {
        try translatingErrors {
            let path = url.standardizedFileURL.path
            guard FileManager.default.fileExists(atPath: path) else { throw VaultError.notFound(path) }
            let vaultFile = try pinVaultFile(at: path, configuration: configuration)
            let material = try UnlockMaterial(
                unlock, allowsInsecurePermissions: configuration.allowsInsecurePermissions)
            let database = try openDatabase(vaultFile, configuration: configuration)
            let (vaultID, slots) = try database.read { db in
                (try VaultSchema.readHeader(db), try KeySlot.all(in: db))
            }
            try database.enableWriteAheadLog()
            let keys = try KeyRing(openSlot(slots, with: material, vaultID: vaultID).payload)
            return Vault(database: database, vaultID: vaultID, url: url, configuration: configuration, keys: keys)
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
            return try makeInMemory(slots: { _ in [] }, keys: KeyRing(payload), configuration: configuration)
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
            let material = try UnlockMaterial(
                unlock, allowsInsecurePermissions: configuration.allowsInsecurePermissions)
            try material.checkStrength()
            let payload = newVaultPayload(for: material)
            return try makeInMemory(
                slots: { vaultID in
                    [
                        try KeySlot.make(
                            wrapping: payload, with: material, keyDerivation: keyDerivation, vaultID: vaultID)
                    ]
                }, keys: KeyRing(payload), configuration: configuration)
        }
    }

    /// A new master key, and a passcode root when the first slot has a passphrase.
    private static func newVaultPayload(for material: UnlockMaterial) -> SlotPayload {
        SlotPayload(
            masterKey: SymmetricKey(randomByteCount: SubkeyDerivation.masterKeyByteCount),
            passcodeRoot: material.slotKind.usesPassphrase ? SymmetricKey(randomByteCount: 32) : nil)
    }

    private static func makeInMemory(
        slots: ([UInt8]) throws -> [KeySlot], keys: KeyRing, configuration: Configuration
    ) throws -> Vault {
        let vaultID = SecureRandom.bytes(count: VaultFormat.idByteCount)
        let database = try SQLiteDatabase(path: ":memory:", mode: .memory, busyTimeout: .zero)
        try initialize(database, vaultID: vaultID, slots: slots(vaultID), keys: keys)
        return Vault(database: database, vaultID: vaultID, url: nil, configuration: configuration, keys: keys)
    }

    private static func initialize(
        _ database: SQLiteDatabase, vaultID: [UInt8], slots: [KeySlot], keys: KeyRing
    ) throws {
        try database.write { db in
            try db.execute(VaultSchema.createStatements)
            try db.run(
                "INSERT INTO vault_header (singleton, format_version, vault_id) VALUES (1, ?, ?)",
                [.integer(Int64(VaultFormat.currentVersion)), .blob(vaultID)])
            for slot in slots { try slot.insert(into: db) }
            try IntegrityState.empty.store(into: db, keys: keys, vaultID: vaultID)
        }
    }

    // MARK: Locking

    /// Whether the key material has been wiped; reads and writes then throw ``VaultError/locked``.
    public var isLocked: Bool { session.withLock { $0.keys == nil } }

    /// Wipes all key material (and proofs being reused, the device secret, and the key of the
    /// credential layer's token copies) from memory. Operations already running finish first.
    public func lock() {
        session.withLock { $0 = VaultSession() }
        device.withLock { $0 = nil }
    }

    /// Unlocks with any key slot's material, starting a new unlock session.
    ///
    /// - Parameter unlock: The passphrase, key file, or both.
    /// - Throws: ``VaultError/invalidCredentials``, ``VaultError/invalidKeyFile(_:)``,
    ///   ``VaultError/insecurePermissions(_:)`` (a key file open to other users),
    ///   ``VaultError/unsupportedFormat(_:)`` (a slot's costs out of bounds).
    public func unlock(_ unlock: VaultUnlock) throws {
        try Self.translatingErrors {
            let material = try UnlockMaterial(
                unlock, allowsInsecurePermissions: configuration.allowsInsecurePermissions)
            let slots = try database.read { try KeySlot.all(in: $0) }
            startSession(try KeyRing(Self.openSlot(slots, with: material, vaultID: vaultID).payload))
        }
    }

    /// Finds the slot `material` opens.
    ///
    /// Slots whose costs are out of bounds are skipped without running Argon2; if no slot opens
    /// and one was skipped, the error says so rather than blaming the passphrase.
    static func openSlot(
        _ slots: [KeySlot], with material: UnlockMaterial, vaultID: [UInt8]
    ) throws -> (slot: KeySlot, payload: SlotPayload) {
        var outOfBounds: VaultError?
        for slot in slots where slot.kind == material.slotKind {
            if slot.kind.usesPassphrase {
                do {
                    try KeyDerivation.checkBounds(slot.parameters)
                } catch let error as VaultError {
                    outOfBounds = error
                    continue
                }
            }
            if let payload = try slot.unwrap(with: material, vaultID: vaultID) {
                return (slot, payload)
            }
        }
        throw outOfBounds ?? VaultError.invalidCredentials
    }

    // MARK: Transactions

    /// Runs `body` in a write transaction whose record changes update the integrity digest.
    func write<Result>(
        keys given: KeyRing? = nil, _ body: (inout RecordTransaction) throws -> Result
    ) throws -> Result {
        try Self.translatingErrors {
            let keys = try given ?? unlockedKeys()
            return try database.write { db in
                var transaction = try RecordTransaction(db: db, keys: keys, vaultID: vaultID)
                let result = try body(&transaction)
                try transaction.commit()
                return result
            }
        }
    }

    /// Runs `body` on one consistent snapshot.
    func read<Result>(_ body: (SQLiteConnection, KeyRing) throws -> Result) throws -> Result {
        try Self.translatingErrors {
            let keys = try unlockedKeys()
            return try database.read { db in try body(db, keys) }
        }
    }

    /// Runs `body`, turning lower-layer errors into ``VaultError``. Anything else was thrown by
    /// the caller's own closure (``update(_:_:)``) and passes through unchanged.
    static func translatingErrors<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as VaultError {
            throw error
        } catch let error as StorageError {
            throw VaultError(error)
        } catch let error as CryptoError {
            throw VaultError(error)
        } catch let error as POSIXError {
            throw VaultError.storage("file system error: \(error.code)")
        } catch let error as CocoaError {
            throw VaultError.storage(error.localizedDescription)
        }
    }
}
