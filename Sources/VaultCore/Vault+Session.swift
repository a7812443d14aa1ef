import Foundation
import Locking

/// The unlock session: the key ring, when it was unlocked and last used, and proofs being reused.
struct VaultSession {
    struct ProofID: Hashable {
        let context: UUID
        let factor: AuthenticationFactor
    }

    /// Replacing the keys (a lock, a rotation, the end of the session) replaces the token
    /// metadata cache, which holds what the old keys opened.
    var keys: KeyRing? {
        didSet {
            if keys !== oldValue {
                tokenMetadata = TokenMetadataCache()
                openedRows = OpenedRows()
            }
        }
    }
    var unlockedAt: Duration = .zero
    var lastActivity: Duration = .zero
    var ended = false
    var proofs: [ProofID: (keys: FactorRecord.Keys, expires: Duration)] = [:]
    /// Seals the credential layer's in-memory token copies; replaced whenever keys are wiped.
    var cacheKey: CacheKey?
    /// The token records these keys opened, for listings.
    var tokenMetadata = TokenMetadataCache()
    /// The digests and default name these keys opened, for writes.
    var openedRows = OpenedRows()

    /// Ends the session if a timeout has passed: only the keys that outlive a session stay.
    mutating func enforceTimeouts(now: Duration, configuration: Vault.Configuration) {
        guard let keys, !ended else { return }
        let idle = configuration.idleTimeout.map { now - lastActivity >= $0 } ?? false
        let expired = configuration.sessionTimeout.map { now - unlockedAt >= $0 } ?? false
        if idle || expired {
            self.keys = keys.withoutSessionClasses()
            ended = true
            proofs = [:]
            cacheKey = nil
        }
    }
}

extension Vault {
    /// The keys, after applying the auto-lock timeouts; counts as activity.
    ///
    /// - Throws: ``VaultError/locked`` when locked.
    func unlockedKeys() throws -> KeyRing {
        let now = configuration.clock.now
        return try session.withLock { session in
            session.enforceTimeouts(now: now, configuration: configuration)
            guard let keys = session.keys else { throw VaultError.locked }
            session.lastActivity = now
            return keys
        }
    }

    /// What the session holding `keys` has opened of the rows every write reads, or `nil` when the
    /// session has other keys now (a lock or a new unlock came between).
    func openedRows(for keys: KeyRing) -> OpenedRows? {
        session.withLock { $0.keys === keys ? $0.openedRows : nil }
    }

    /// Starts a new unlock session with `keys`.
    func startSession(_ keys: KeyRing) {
        let now = configuration.clock.now
        session.withLock { $0 = VaultSession(keys: keys, unlockedAt: now, lastActivity: now) }
    }

    /// Ends the unlock session now if a timeout has passed (called by the auto-lock timer, so keys
    /// are wiped on time even when nobody reads).
    func enforceAutoLock() {
        let now = configuration.clock.now
        session.withLock { $0.enforceTimeouts(now: now, configuration: configuration) }
    }

    /// A factor's keys for a read: from the reuse window, or from a new proof.
    func factorKeys(
        _ factor: AuthenticationFactor, record: FactorRecord, context: (any AuthenticationContext)?, prompt: String?
    ) throws -> FactorRecord.Keys? {
        guard let context else { return nil }
        let id = VaultSession.ProofID(context: context.id, factor: factor)
        let now = configuration.clock.now
        if let cached = session.withLock({ $0.proofs[id] }), cached.expires > now,
            cached.keys.enrollmentID == record.enrollmentID
        {
            return cached.keys
        }
        guard let proof = try context.proof(for: factor, prompt: prompt) else { return nil }
        let keys = try record.open(
            with: proof, vaultID: vaultID, allowsInsecurePermissions: configuration.allowsInsecurePermissions)
        if context.reuseWindow > .zero {
            session.withLock { session in
                if session.keys != nil { session.proofs[id] = (keys, now + context.reuseWindow) }
            }
        }
        return keys
    }

    /// The device secret, read once per process (and created when `creating`).
    func deviceSecret(creating: Bool) throws -> DeviceSecret? {
        if let cached = device.withLock({ $0 }) { return cached }
        let url = configuration.deviceSecretURL
        let loose = configuration.allowsInsecurePermissions
        guard
            let loaded = creating
                ? try DeviceSecret.loadOrCreate(at: url, allowsInsecurePermissions: loose)
                : try DeviceSecret.load(at: url, allowsInsecurePermissions: loose)
        else { return nil }
        device.withLock { $0 = loaded }
        return loaded
    }

    /// Polls the clock so idle and absolute timeouts wipe keys on time.
    static func startAutoLockTimer(for vault: Vault) {
        let timeouts = [vault.configuration.idleTimeout, vault.configuration.sessionTimeout].compactMap { $0 }
        guard let shortest = timeouts.min() else { return }
        let interval = min(max(shortest / 4, .milliseconds(10)), .seconds(1))
        let task = Task.detached { [weak vault] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let vault else { return }
                vault.enforceAutoLock()
            }
        }
        vault.autoLockTimer.withLock { $0 = task }
    }
}
