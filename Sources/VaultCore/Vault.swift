import Foundation
import Synchronization
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
    private let keyRing: Mutex<KeyRing?>

    private init(
        database: SQLiteDatabase, vaultID: [UInt8], url: URL?, configuration: Configuration, keys: KeyRing?
    ) {
        self.database = database
        self.vaultID = vaultID
        self.url = url
        self.configuration = configuration
        self.keyRing = Mutex(keys)
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
    ///   passphrase), ``VaultError/invalidKeyFile(_:)``, ``VaultError/unsupportedFormat(_:)`` (costs
    ///   out of bounds), ``VaultError/storage(_:)``.
    public static func create(
        at url: URL, unlock: VaultUnlock, keyDerivation: KeyDerivation = .moderate,
        configuration: Vault.Configuration = .init()
    ) throws -> Vault {
        try translatingErrors {
            let path = url.standardizedFileURL.path
            guard !FileManager.default.fileExists(atPath: path) else { throw VaultError.alreadyExists(path) }
            let material = try UnlockMaterial(unlock)
            try material.checkStrength()
            let master = SymmetricKey(randomByteCount: SubkeyDerivation.masterKeyByteCount)
            let vaultID = SecureRandom.bytes(count: VaultFormat.idByteCount)
            let slot = try KeySlot.make(
                wrapping: master, with: material, keyDerivation: keyDerivation, vaultID: vaultID)
            let keys = try KeyRing(masterKey: master)

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
    ///   ``VaultError/storage(_:)``.
    public static func open(
        at url: URL, unlock: VaultUnlock, configuration: Vault.Configuration = .init()
    ) throws -> Vault {
        try translatingErrors {
            let path = url.standardizedFileURL.path
            guard FileManager.default.fileExists(atPath: path) else { throw VaultError.notFound(path) }
            let material = try UnlockMaterial(unlock)
            let database = try SQLiteDatabase(path: path, mode: .readWrite, busyTimeout: configuration.busyTimeout)
            let (vaultID, slots) = try database.read { db in
                (try VaultSchema.readHeader(db), try KeySlot.all(in: db))
            }
            try database.enableWriteAheadLog()
            let keys = try KeyRing(masterKey: openSlot(slots, with: material, vaultID: vaultID).master)
            return Vault(database: database, vaultID: vaultID, url: url, configuration: configuration, keys: keys)
        }
    }

    /// A vault that lives only in memory, unlocked with a random master key: for tests.
    ///
    /// It has no key slot, so after ``lock()`` nothing can unlock it again; use
    /// ``inMemory(unlock:keyDerivation:)`` to test locking.
    /// - Returns: The unlocked vault.
    public static func inMemory() -> Vault {
        do {
            let keys = try KeyRing(masterKey: SymmetricKey(randomByteCount: SubkeyDerivation.masterKeyByteCount))
            return try makeInMemory(slots: { _ in [] }, keys: keys)
        } catch {
            fatalError("cannot create an in-memory SQLite database: \(error)")
        }
    }

    /// A vault that lives only in memory, with one key slot, so that it can be locked and unlocked.
    ///
    /// - Parameters:
    ///   - unlock: The slot's unlock material.
    ///   - keyDerivation: Argon2id costs for a passphrase; `.interactive` by default.
    /// - Returns: The unlocked vault.
    /// - Throws: As ``create(at:unlock:keyDerivation:configuration:)``.
    public static func inMemory(unlock: VaultUnlock, keyDerivation: KeyDerivation = .interactive) throws -> Vault {
        try translatingErrors {
            let material = try UnlockMaterial(unlock)
            try material.checkStrength()
            let master = SymmetricKey(randomByteCount: SubkeyDerivation.masterKeyByteCount)
            return try makeInMemory(
                slots: { vaultID in
                    [try KeySlot.make(wrapping: master, with: material, keyDerivation: keyDerivation, vaultID: vaultID)]
                }, keys: KeyRing(masterKey: master))
        }
    }

    private static func makeInMemory(slots: ([UInt8]) throws -> [KeySlot], keys: KeyRing) throws -> Vault {
        let vaultID = SecureRandom.bytes(count: VaultFormat.idByteCount)
        let database = try SQLiteDatabase(path: ":memory:", mode: .memory, busyTimeout: .zero)
        try initialize(database, vaultID: vaultID, slots: slots(vaultID), keys: keys)
        return Vault(database: database, vaultID: vaultID, url: nil, configuration: .init(), keys: keys)
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
    public var isLocked: Bool { keyRing.withLock { $0 == nil } }

    /// Wipes the key material from memory. Operations already running finish first.
    public func lock() {
        keyRing.withLock { $0 = nil }
    }

    /// Unlocks with any key slot's material.
    ///
    /// - Parameter unlock: The passphrase, key file, or both.
    /// - Throws: ``VaultError/invalidCredentials``, ``VaultError/invalidKeyFile(_:)``,
    ///   ``VaultError/unsupportedFormat(_:)`` (a slot's costs out of bounds).
    public func unlock(_ unlock: VaultUnlock) throws {
        try Self.translatingErrors {
            let material = try UnlockMaterial(unlock)
            let slots = try database.read { try KeySlot.all(in: $0) }
            let keys = try KeyRing(masterKey: Self.openSlot(slots, with: material, vaultID: vaultID).master)
            keyRing.withLock { $0 = keys }
        }
    }

    /// Replaces the key slot that `old` opens with one for `new`, in one transaction. Records are
    /// not re-encrypted: only the master key is re-wrapped. `old` stops working at once.
    ///
    /// - Parameters:
    ///   - old: Material that opens an existing slot.
    ///   - new: The replacement material (a passphrase, key file, or both).
    ///   - keyDerivation: Argon2id costs for the new slot; by default the old slot's when it had a
    ///     passphrase, else `.moderate`.
    /// - Throws: ``VaultError/invalidCredentials`` when `old` opens no slot,
    ///   ``VaultError/invalidArgument(_:)`` for an empty new passphrase, and the errors of ``open(at:unlock:configuration:)``.
    public func changeUnlock(from old: VaultUnlock, to new: VaultUnlock, keyDerivation: KeyDerivation? = nil) throws {
        try Self.translatingErrors {
            let oldMaterial = try UnlockMaterial(old)
            let newMaterial = try UnlockMaterial(new)
            try newMaterial.checkStrength()
            let slots = try database.read { try KeySlot.all(in: $0) }
            let (opened, master) = try Self.openSlot(slots, with: oldMaterial, vaultID: vaultID)
            let costs =
                keyDerivation
                ?? (opened.kind.usesPassphrase
                    ? .custom(opsLimit: opened.parameters.opsLimit, memLimitBytes: opened.parameters.memLimitBytes)
                    : .moderate)
            let replacement = try KeySlot.make(
                wrapping: master, with: newMaterial, keyDerivation: costs, vaultID: vaultID)
            try database.write { db in
                try KeySlot.delete(id: opened.id, from: db)
                guard db.changes == 1 else { throw VaultError.invalidCredentials }  // changed meanwhile
                try replacement.insert(into: db)
            }
        }
    }

    /// Finds the slot `material` opens.
    ///
    /// Slots whose costs are out of bounds are skipped without running Argon2; if no slot opens
    /// and one was skipped, the error says so rather than blaming the passphrase.
    static func openSlot(
        _ slots: [KeySlot], with material: UnlockMaterial, vaultID: [UInt8]
    ) throws -> (slot: KeySlot, master: SymmetricKey) {
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
            if let master = try slot.unwrap(with: material, vaultID: vaultID) {
                return (slot, master)
            }
        }
        throw outOfBounds ?? VaultError.invalidCredentials
    }

    // MARK: Transactions

    /// The keys, or ``VaultError/locked``.
    func unlockedKeys() throws -> KeyRing {
        guard let keys = keyRing.withLock({ $0 }) else { throw VaultError.locked }
        return keys
    }

    /// Runs `body` in a write transaction whose record changes update the integrity digest.
    func write<Result>(_ body: (inout RecordTransaction) throws -> Result) throws -> Result {
        try Self.translatingErrors {
            let keys = try unlockedKeys()
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

    /// Runs `body`, turning lower-layer errors into ``VaultError``.
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
        // Anything else was thrown by the caller's own closure (``update(_:_:)``): it passes
        // through unchanged.
    }
}
