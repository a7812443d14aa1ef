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
    // One parameter group a line, as the public API is documented, so the signature stays greppable.
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
            let vaultID = SecureRandom.bytes(count: VaultFormat.idByteCount)
            let (slot, keys) = try firstSlot(for: material, keyDerivation: keyDerivation, vaultID: vaultID)

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
    // One parameter group a line, as the public API is documented, so the signature stays greppable.
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
            let header = try database.read { try VaultSchema.readHeader($0) }
            try database.enableWriteAheadLog()
            if header.formatVersion == 1 { try database.write { try VaultSchema.addVersion2Columns($0) } }
            if header.formatVersion == 3 { try database.write { try VaultSchema.addIndexState($0) } }
            let vaultID = header.vaultID
            let device = try? DeviceSecret.load(
                at: configuration.deviceSecretURL, allowsInsecurePermissions: configuration.allowsInsecurePermissions)
            let keys = try unlockRing(with: material, database: database, vaultID: vaultID, device: device)
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
            let material = try UnlockMaterial(
                unlock, allowsInsecurePermissions: configuration.allowsInsecurePermissions)
            try material.checkStrength()
            let vaultID = SecureRandom.bytes(count: VaultFormat.idByteCount)
            let (slot, keys) = try firstSlot(for: material, keyDerivation: keyDerivation, vaultID: vaultID)
            return try makeInMemory(vaultID: vaultID, slots: [slot], keys: keys, configuration: configuration)
        }
    }

    /// The first key slot of a new vault, granted a new master key (and a passcode root when it has a
    /// passphrase), and the keys it opens.
    private static func firstSlot(
        for material: UnlockMaterial, keyDerivation: KeyDerivation, vaultID: [UInt8]
    ) throws -> (KeySlot, KeyRing) {
        let payload = SlotPayload(
            masterKey: SymmetricKey(randomByteCount: SubkeyDerivation.masterKeyByteCount),
            passcodeRoot: material.slotKind.usesPassphrase ? SymmetricKey(randomByteCount: 32) : nil)
        let (made, slotKeys) = try KeySlot.make(
            with: material, isScoped: false, keyDerivation: keyDerivation, vaultID: vaultID)
        let slot = try made.granting(payload, epoch: 0, vaultID: vaultID)
        return (slot, try KeyRing(payload, epoch: 0, slot: .init(id: slot.id, keys: slotKeys)))
    }

    private static func makeInMemory(
        vaultID: [UInt8], slots: [KeySlot], keys: KeyRing, configuration: Configuration
    ) throws -> Vault {
        let database = try SQLiteDatabase(path: ":memory:", mode: .memory, busyTimeout: .zero)
        try initialize(database, vaultID: vaultID, slots: slots, keys: keys)
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
            try ScopedDigests(rows: [], slots: slots, keys: keys, groups: [:])
                .storeAll(into: SQLiteRecordStore(db), generations: [:], keys: keys, groups: [:], vaultID: vaultID)
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
            startSession(
                try Self.unlockRing(
                    with: material, database: database, vaultID: vaultID, device: try? deviceSecret(creating: false)))
        }
    }

    /// A slot that unlock material opened: the slot, what it grants now, and its private key (`nil`
    /// for a legacy slot, which wraps its payload directly).
    struct OpenedSlot {
        let slot: KeySlot
        let payload: SlotPayload
        let keys: AnonymousSealedBox.KeyPair?
    }

    /// The keys `material` unlocks, upgrading a legacy slot (and a version 1 file) on the way.
    ///
    /// - Parameter device: This device's secret, if any: a migration files items bound to it under
    ///   their access group.
    static func unlockRing(
        with material: UnlockMaterial, database: SQLiteDatabase, vaultID: [UInt8], device: DeviceSecret?
    ) throws -> KeyRing {
        while true {
            let (epoch, slots) = try database.read { db in (try VaultSchema.epoch(db), try KeySlot.all(in: db)) }
            let opened = try openSlot(slots, with: material, vaultID: vaultID, epoch: epoch)
            if let keys = opened.keys {
                return try KeyRing(opened.payload, epoch: epoch, slot: .init(id: opened.slot.id, keys: keys))
            }
            if let ring = try VaultMigration.upgrade(
                opened, material: material, database: database, vaultID: vaultID, device: device)
            {
                compactLogAfterBulkWork(database)
                return ring
            }
        }
    }

    /// Finds the slot `material` opens, granted for `epoch`.
    ///
    /// Slots of the material's kind are tried cheapest first, at most
    /// ``VaultFormat/maximumSlotCount`` of them, so junk slots at the highest cost cannot make an
    /// unlock run Argon2 a thousand times. Slots whose costs are out of bounds are skipped without
    /// running Argon2; if no slot opens and one was skipped, the error says so rather than blaming
    /// the passphrase. A slot whose grant is of another epoch (an old row put back) does not open.
    static func openSlot(
        _ slots: [KeySlot], with material: UnlockMaterial, vaultID: [UInt8], epoch: UInt64
    ) throws -> OpenedSlot {
        var outOfBounds: VaultError?
        let candidates = slots.filter { $0.kind == material.slotKind }.sorted { $0.cost < $1.cost }
        for slot in candidates.prefix(VaultFormat.maximumSlotCount) {
            if slot.kind.usesPassphrase {
                do {
                    try KeyDerivation.checkBounds(slot.parameters)
                } catch let error as VaultError {
                    outOfBounds = error
                    continue
                }
            }
            if slot.isLegacy {
                if let payload = try slot.unwrapLegacy(with: material, vaultID: vaultID) {
                    return OpenedSlot(slot: slot, payload: payload, keys: nil)
                }
            } else if let keys = try slot.unlockKeys(with: material, vaultID: vaultID),
                let payload = try slot.openGrant(with: keys, epoch: epoch, vaultID: vaultID)
            {
                return OpenedSlot(slot: slot, payload: payload, keys: keys)
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
            let held = try given ?? unlockedKeys()
            return try database.write { db in
                let keys = try currentKeys(held, in: db)
                var transaction = try RecordTransaction(db: db, keys: keys, vaultID: vaultID)
                let result = try body(&transaction)
                try transaction.commit()
                return result
            }
        }
    }

    /// Runs `body` on one consistent snapshot of the records.
    func read<Result>(_ body: (any RecordReader, KeyRing) throws -> Result) throws -> Result {
        try readConnection { db, keys in try body(SQLiteRecordStore(db), keys) }
    }

    /// Runs `body` on one consistent snapshot of the whole file, for what reads more than records
    /// (key slots, the file's structure).
    func readConnection<Result>(_ body: (SQLiteConnection, KeyRing) throws -> Result) throws -> Result {
        try Self.translatingErrors {
            let held = try unlockedKeys()
            return try database.read { db in try body(db, try currentKeys(held, in: db)) }
        }
    }

    /// `keys`, or when another process has re-keyed the vault since, the new epoch's keys, opened
    /// with the private key of the slot this process unlocked through.
    ///
    /// - Throws: ``VaultError/locked`` when that slot was removed or replaced (the unlock was
    ///   revoked), or the session no longer holds its private key; the vault is then locked.
    func currentKeys(_ keys: KeyRing, in db: SQLiteConnection) throws -> KeyRing {
        let epoch = try VaultSchema.epoch(db)
        guard epoch != keys.epoch else { return keys }
        guard let access = keys.slot, let slot = try KeySlot.find(id: access.id, in: db), !slot.isLegacy,
            let payload = try slot.openGrant(with: access.keys, epoch: epoch, vaultID: vaultID)
        else {
            // The unlock was revoked: lock, as lock() does, unless another call already moved on.
            let revoked = session.withLock { state -> Bool in
                guard state.keys === keys else { return false }
                state = VaultSession()
                return true
            }
            if revoked { device.withLock { $0 = nil } }
            throw VaultError.locked
        }
        let next = try KeyRing(payload, epoch: epoch, slot: access)
        session.withLock { if $0.keys === keys { $0.keys = next } }
        return next
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
