import VaultCrypto

/// What key material an unlocked vault holds: for tests that show a policy is enforced by the
/// keys held, not by a check that could be skipped. Package-internal, not public API.
package struct KeyMaterialSummary: Equatable {
    package let hasMasterKey: Bool
    package let hasPasscodeRoot: Bool
    package let classes: Set<Accessibility>
    /// The groups a scoped unlock holds keys for; `nil` with full access.
    package let scope: Set<String?>?
}

/// Where one key of an unlocked vault lives in secure memory: for the wipe test, which reads the
/// same bytes again after ``Vault/lock()``. Package-internal, not public API.
package struct KeyBufferLocation: Sendable {
    /// The key's role and class, e.g. `master` or `class root whenUnlocked`.
    package let label: String
    /// The address of its first byte.
    package let address: UInt
    /// Its length in bytes.
    package let count: Int
}

extension Vault {
    /// For a vault in PostgreSQL: how many writes committed ahead of a transaction in one round
    /// trip, and how many ran again in a transaction because another process wrote between;
    /// `nil` for other backends.
    package var writesAheadForTesting: (committed: Int, rerun: Int)? {
        (backend as? PostgresVaultBackend)?.writesAhead.withLock { $0 }
    }

    /// For a vault file: how many write transactions started from what this vault's previous write
    /// knew of the rows, and how many read them again because another write came between; `nil`
    /// for other backends.
    package var writesFromKnownStateForTesting: (reused: Int, readAgain: Int)? {
        (backend as? SQLiteVaultBackend)?.writesFromKnownState.withLock { $0 }
    }

    /// Where every key held now lives (master key, subkeys, class roots, cached domain keys, the
    /// token cache key, the device secret); empty when locked. Addresses only, so asking does not
    /// keep a key alive.
    package var keyBuffersForTesting: [KeyBufferLocation] {
        var keys = session.withLock { session in
            (session.keys?.labelledKeys ?? []) + (session.cacheKey.map { [(label: "token cache", key: $0.key)] } ?? [])
        }
        if let device = device.withLock({ $0 }) { keys.append((label: "device secret", key: device.key)) }
        return keys.map {
            KeyBufferLocation(label: $0.label, address: $0.key.secureBytes.addressForTesting, count: $0.key.byteCount)
        }
    }

    /// The ids of the token records the unlock session's metadata cache holds now: empty when
    /// locked, and before the session's first listing.
    package var cachedTokenIDsForTesting: [String] {
        session.withLock { $0.tokenMetadata }.listedIDs
    }

    /// The key material in memory now, after applying the auto-lock timeouts; `nil` when locked.
    package var keyMaterialForTesting: KeyMaterialSummary? {
        enforceAutoLock()
        return session.withLock { session in
            session.keys.map {
                KeyMaterialSummary(
                    hasMasterKey: $0.masterKey != nil, hasPasscodeRoot: $0.passcodeRoot != nil, classes: $0.heldClasses,
                    scope: $0.scope)
            }
        }
    }

    /// The decrypted record an item is stored in (its outer envelope, opened with the domain key
    /// alone), to show what a holder of every domain key can and cannot read.
    package func outerPlaintextForTesting<Value>(_ key: SecretKey<Value>) throws -> [UInt8]? {
        let device = try deviceSecret(creating: false)
        return try read { records, keys in
            let lookup = keys.lookup(kind: .keyValueItem, accessGroup: key.policy.accessGroup, name: key.name)
            guard let row = try records.row(lookup: lookup) else { return nil }
            let domain = try Domain(policyCode: row.policyCode, accessGroup: key.policy.accessGroup)
            return try row.open(key: keys.key(for: domain, device: device), vaultID: vaultID)
        }
    }
}

extension Vault {
    /// The record id of token `id` (the row its look-up tag names), to tamper with that row or its
    /// index entries in a test; `nil` when it is not stored.
    package func tokenRecordIDForTesting(_ id: String) throws -> [UInt8]? {
        try read { records, keys in try records.row(lookup: keys.lookup(kind: .token, accessGroup: nil, name: id))?.id }
    }
}
