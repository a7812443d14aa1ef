import Foundation
import Locking
import VaultCrypto
import VaultStorage

/// An encrypted vault in one SQLite file, or shared by a fleet in PostgreSQL: key slots, sealed
/// records, and an integrity digest.
///
/// Every record is sealed with XChaCha20-Poly1305 under a key derived from a random master key; the
/// master key is wrapped in key slots opened by a passphrase (Argon2id), a key file, or both. All
/// methods are safe to call from many tasks at once, and several processes may share one vault.
///
/// The rows live in a storage backend (the SQLite file, or a PostgreSQL schema); everything above
/// it (sealing, key slots' cryptography, the digests, policies) is the same whatever stores them.
///
/// ```swift
/// let vault = try Vault.create(at: url, unlock: .passphrase("correct horse battery staple"))
/// try vault.set("sk_live_...", for: SecretKey<String>("stripe"))
/// ```
public final class Vault: Sendable {
    let backend: any VaultBackend
    let vaultID: [UInt8]
    /// The file, or `nil` for an in-memory vault or one in PostgreSQL.
    public let url: URL?
    let configuration: Configuration
    let session = Locked(VaultSession())
    let device = Locked<DeviceSecret?>(nil)
    let autoLockTimer = Locked<Task<Void, Never>?>(nil)

    init(backend: any VaultBackend, vaultID: [UInt8], url: URL?, configuration: Configuration, keys: KeyRing) {
        self.backend = backend
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

    /// A new vault's id, and its first key slot for `unlock` with the keys it opens: the unlock's
    /// material is read and its strength checked first.
    static func newVault(
        unlock: VaultUnlock, keyDerivation: KeyDerivation, configuration: Configuration
    ) throws -> (vaultID: [UInt8], slot: KeySlot, keys: KeyRing) {
        let material = try UnlockMaterial(unlock, allowsInsecurePermissions: configuration.allowsInsecurePermissions)
        try material.checkStrength()
        let vaultID = SecureRandom.bytes(count: VaultFormat.idByteCount)
        let (slot, keys) = try firstSlot(for: material, keyDerivation: keyDerivation, vaultID: vaultID)
        return (vaultID, slot, keys)
    }

    /// The first key slot of a new vault, granted a new master key (and a passcode root when it has a
    /// passphrase), and the keys it opens.
    static func firstSlot(
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

    /// Creates a new vault's tables in `backend`, with its first slots and their digest.
    static func initialize(
        _ backend: any VaultBackend, vaultID: [UInt8], slots: [KeySlot], keys: KeyRing
    ) throws {
        try backend.write { db in
            try db.createVault(vaultID: vaultID)
            for slot in slots { try db.insertSlot(slot) }
            try ScopedDigests(rows: [], slots: slots, keys: keys, groups: [:])
                .storeAll(into: db.recordStore, generations: [:], keys: keys, groups: [:], vaultID: vaultID)
        }
    }

    /// Closes the vault's connections: for a file, the log is checkpointed first, so a process that
    /// exits right after leaves no `-wal` or `-shm` file behind when it was the last to have the vault
    /// open.
    ///
    /// Never fails: a busy checkpoint leaves the log to the connections still using the file.
    /// Operations already running finish first; later operations throw ``VaultError/storage(_:)``.
    package func close() {
        backend.close()
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
                    with: material, backend: backend, vaultID: vaultID, device: try? deviceSecret(creating: false)))
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
        with material: UnlockMaterial, backend: any VaultBackend, vaultID: [UInt8], device: DeviceSecret?
    ) throws -> KeyRing {
        while true {
            let (epoch, slots) = try backend.read { db in (try db.epoch(), try db.keySlots()) }
            let opened = try openSlot(slots, with: material, vaultID: vaultID, epoch: epoch)
            if let keys = opened.keys {
                return try KeyRing(opened.payload, epoch: epoch, slot: .init(id: opened.slot.id, keys: keys))
            }
            if let ring = try VaultMigration.upgrade(
                opened, material: material, backend: backend, vaultID: vaultID, device: device)
            {
                compactLogAfterBulkWork(backend)
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
    ///
    /// - Parameters:
    ///   - rerunnable: Whether `body` only reads and writes the vault, so it may run more than once:
    ///     the backend may then run it ahead on what it knows and commit in one round trip
    ///     (``VaultBackend/writeAhead(_:)``). Never for a body that calls the caller's closures.
    func write<Result>(
        keys given: KeyRing? = nil, rerunnable: Bool = false, _ body: (inout RecordTransaction) throws -> Result
    ) throws -> Result {
        try Self.translatingErrors {
            let held = try given ?? unlockedKeys()
            func run(_ db: any BackendWriteTransaction) throws -> Result {
                let (epoch, format) = try db.epochAndFormatVersion()
                let keys = try currentKeys(held, epoch: epoch, in: db)
                var transaction = try RecordTransaction(
                    db: db, keys: keys, vaultID: vaultID, format: format, opened: openedRows(for: keys))
                let result = try body(&transaction)
                try transaction.commit()
                return result
            }
            return try rerunnable ? backend.writeAhead(run) : backend.write(run)
        }
    }

    /// How many rows a pass over every record holds at a time (``verify()``, a key rotation, the
    /// metadata cache's first listing, a format upgrade's checks): about 3 MiB of sealed tokens,
    /// within a processor's last-level cache.
    package static let rowsPerPage = 1_024

    /// Runs `body` on one consistent snapshot of the records.
    func read<Result>(_ body: (any RecordReader, KeyRing) throws -> Result) throws -> Result {
        try readConnection { db, keys in try body(db.records, keys) }
    }

    /// ``read(_:)`` for a `body` that looks rows up by tag: the rows of the tags `lookups` names
    /// are fetched first with the key epoch, in one round trip where the backend can
    /// (``VaultBackend/epochAndRows(lookups:)``), and `body` runs on them. When the epoch moved
    /// (the vault was re-keyed) or `body` reads anything else, it runs again in a ``read(_:)``
    /// transaction, so it must only read.
    func read<Result>(
        prefetching lookups: (KeyRing) -> [[UInt8]], _ body: (any RecordReader, KeyRing) throws -> Result
    ) throws -> Result {
        let prefetched = try Self.translatingErrors { () throws -> Result? in
            let held = try unlockedKeys()
            let wanted = lookups(held)
            guard let snapshot = try backend.epochAndRows(lookups: wanted), snapshot.epoch == held.epoch else {
                return nil
            }
            do {
                return try body(PrefetchedRecords(lookups: wanted, rows: snapshot.rows), held)
            } catch is PrefetchedRecords.Miss {
                return nil
            }
        }
        if let prefetched { return prefetched }
        return try read(body)
    }

    /// Runs `body` on one consistent snapshot of the whole vault, for what reads more than records
    /// (key slots, the header, the storage's structure).
    func readConnection<Result>(_ body: (any BackendReadTransaction, KeyRing) throws -> Result) throws -> Result {
        try Self.translatingErrors {
            let held = try unlockedKeys()
            return try backend.read { db in try body(db, try currentKeys(held, in: db)) }
        }
    }

    /// `keys`, or when another process has re-keyed the vault since, the new epoch's keys, opened
    /// with the private key of the slot this process unlocked through.
    ///
    /// - Throws: ``VaultError/locked`` when that slot was removed or replaced (the unlock was
    ///   revoked), or the session no longer holds its private key; the vault is then locked.
    func currentKeys(_ keys: KeyRing, in db: any BackendReadTransaction) throws -> KeyRing {
        try currentKeys(keys, epoch: db.epoch(), in: db)
    }

    /// ``currentKeys(_:in:)`` for a transaction that has read the current `epoch` already.
    func currentKeys(_ keys: KeyRing, epoch: UInt64, in db: any BackendReadTransaction) throws -> KeyRing {
        guard epoch != keys.epoch else { return keys }
        // The slots are read before anything is concluded: a write run ahead, which cannot read
        // them, stops here instead of locking on an epoch it only remembered.
        let slots = try db.keySlots()
        guard let access = keys.slot, let slot = slots.first(where: { $0.id == access.id }), !slot.isLegacy,
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
        } catch let error as PostgresError {
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
