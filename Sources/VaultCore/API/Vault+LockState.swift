import Locking
import VaultCrypto

/// One stretch of time during which a vault's key material did not shrink. It ends with
/// ``Vault/lock()``, a new ``Vault/unlock(_:)`` and the end of the unlock session (idle or absolute
/// timeout): whatever the layers above keep from a read of that stretch must be dropped then.
package struct VaultKeyGeneration: Hashable, Sendable {
    fileprivate let serial: UInt64
}

/// Token strings that the credential layer keeps in ordinary memory between reads, sealed under the
/// cache key of one key generation. The key lives in guarded memory and is wiped when the
/// generation ends, which makes every copy sealed under it unreadable at once.
package struct CachedSecrets: Sendable {
    /// The generation whose cache key sealed them.
    package let generation: VaultKeyGeneration
    fileprivate let box: XChaCha20Poly1305.SealedBox
}

/// The key that seals ``CachedSecrets`` during one key generation; kept in the unlock session, so
/// ``Vault/lock()`` and the end of the session release it and the secure-memory pool zeroes it.
struct CacheKey: Sendable {
    private static let serials = Locked<UInt64>(0)

    let generation: VaultKeyGeneration
    let key = SymmetricKey(randomByteCount: XChaCha20Poly1305.keyByteCount)

    init() {
        generation = VaultKeyGeneration(
            serial: Self.serials.withLock {
                $0 += 1
                return $0
            })
    }
}

extension Vault {
    /// The current key generation, after applying the auto-lock timeouts; `nil` when locked.
    /// Asking does not count as activity.
    package var keyGeneration: VaultKeyGeneration? {
        currentCacheKey(countingAsActivity: false)?.generation
    }

    /// Seals secret strings for a copy the credential layer keeps in ordinary memory.
    ///
    /// - Parameters:
    ///   - secrets: The strings (absent ones as `nil`).
    ///   - generation: The generation the strings were read in, taken before the read.
    /// - Returns: The sealed copy; `nil` when `generation` has ended (the strings then must not be
    ///   kept at all).
    package func sealForCache(_ secrets: [String?], generation: VaultKeyGeneration) -> CachedSecrets? {
        guard let cacheKey = currentCacheKey(countingAsActivity: false), cacheKey.generation == generation else {
            return nil
        }
        // Sized up front: a growing array would leave unwiped copies behind in freed memory.
        var plaintext = [UInt8]()
        plaintext.reserveCapacity(secrets.reduce(0) { $0 + 1 + ($1.map { 4 + $0.utf8.count } ?? 0) })
        defer { plaintext.withUnsafeMutableBytes { SecureBytes.wipe($0) } }
        for secret in secrets {
            guard let secret else {
                plaintext.append(0)
                continue
            }
            plaintext.append(1)
            withUnsafeBytes(of: UInt32(secret.utf8.count).littleEndian) { plaintext.append(contentsOf: $0) }
            plaintext.append(contentsOf: secret.utf8)
        }
        guard
            let box = try? XChaCha20Poly1305.seal(
                plaintext, using: cacheKey.key, authenticating: Self.cacheAssociatedData(generation))
        else { return nil }
        return CachedSecrets(generation: generation, box: box)
    }

    /// Opens a copy made by ``sealForCache(_:generation:)``. Counts as activity, as any read of
    /// the secrets through the vault does.
    ///
    /// - Parameter cached: The sealed copy.
    /// - Returns: The strings, or `nil` when their generation has ended and its key was wiped.
    package func openFromCache(_ cached: CachedSecrets) -> [String?]? {
        guard let cacheKey = currentCacheKey(countingAsActivity: true), cacheKey.generation == cached.generation,
            var plaintext = try? XChaCha20Poly1305.open(
                cached.box, using: cacheKey.key, authenticating: Self.cacheAssociatedData(cached.generation))
        else { return nil }
        defer { plaintext.withUnsafeMutableBytes { SecureBytes.wipe($0) } }
        return plaintext.withUnsafeBytes(Self.decodeCachedSecrets)
    }

    /// The session's cache key, made when first needed; `nil` when locked.
    private func currentCacheKey(countingAsActivity: Bool) -> CacheKey? {
        let now = configuration.clock.now
        return session.withLock { session in
            session.enforceTimeouts(now: now, configuration: configuration)
            guard session.keys != nil else { return nil }
            if countingAsActivity { session.lastActivity = now }
            if let cacheKey = session.cacheKey { return cacheKey }
            let cacheKey = CacheKey()
            session.cacheKey = cacheKey
            return cacheKey
        }
    }

    private static func cacheAssociatedData(_ generation: VaultKeyGeneration) -> [UInt8] {
        Array("TVC1".utf8) + withUnsafeBytes(of: generation.serial.littleEndian, Array.init)
    }

    private static func decodeCachedSecrets(_ bytes: UnsafeRawBufferPointer) -> [String?]? {
        var secrets: [String?] = []
        var offset = 0
        while offset < bytes.count {
            let present = bytes[offset]
            offset += 1
            guard present == 1 else {
                secrets.append(nil)
                continue
            }
            guard offset + 4 <= bytes.count else { return nil }
            var length = 0
            for index in 0..<4 { length |= Int(bytes[offset + index]) << (8 * index) }
            offset += 4
            guard offset + length <= bytes.count else { return nil }
            secrets.append(
                String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]), as: UTF8.self))
            offset += length
        }
        return secrets
    }
}
