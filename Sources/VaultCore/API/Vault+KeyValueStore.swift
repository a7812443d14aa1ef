import Foundation
import VaultCrypto
import VaultStorage

extension Vault {
    /// Stores `value` under `key`, replacing any previous value (and its policy) in one transaction.
    ///
    /// The key's policy is enforced by the keys the value is sealed with: see SECURITY.md. Storing
    /// an access-controlled value needs no proof; reading it does.
    /// - Parameters:
    ///   - value: Any `Codable` value (stored as JSON, sealed).
    ///   - key: The typed name and policy.
    /// - Throws: ``VaultError/locked`` (also for a `whenUnlocked`-type class after the unlock session
    ///   ended), ``VaultError/unsupportedPolicy(_:)`` for a policy this vault cannot enforce,
    ///   ``VaultError/accessDenied(_:)`` outside a scoped unlock's groups,
    ///   ``VaultError/typeMismatch(_:)`` when the value cannot be encoded, ``VaultError/storage(_:)``.
    public func set<Value: Codable & Sendable>(_ value: Value, for key: SecretKey<Value>) throws {
        let encoded = try Self.encode(value)
        let domain = Domain(key.policy)
        if let group = key.policy.accessGroup { try Self.checkGroupName(group) }
        let device = domain.accessibility.isDeviceBound ? try deviceSecret(creating: true) : nil
        try write { transaction in
            try store(encoded, for: key, domain: domain, device: device, in: &transaction)
        }
    }

    /// Reads the value stored under `key`.
    ///
    /// - Parameter key: The typed name.
    /// - Returns: The value, or `nil` when nothing is stored under the name.
    /// - Throws: ``VaultError/locked``, ``VaultError/interactionRequired`` for an access-controlled
    ///   value (use ``get(_:authenticationContext:prompt:)``), ``VaultError/unavailableOnThisDevice``,
    ///   ``VaultError/accessDenied(_:)``, ``VaultError/integrity(_:)`` for a tampered record,
    ///   ``VaultError/typeMismatch(_:)`` when the stored value is not a `Value`.
    public func get<Value: Codable & Sendable>(_ key: SecretKey<Value>) throws -> Value? {
        try get(key, authenticationContext: nil)
    }

    /// Reads the value stored under `key`, asking `authenticationContext` for the proofs an
    /// access-controlled value needs.
    ///
    /// - Parameters:
    ///   - key: The typed name.
    ///   - authenticationContext: Supplies proofs; `nil` reads only values without access control.
    ///   - prompt: The reason shown by a prompting context.
    /// - Returns: The value, or `nil` when nothing is stored under the name.
    /// - Throws: As ``get(_:)``, plus ``VaultError/invalidCredentials`` for a wrong proof and
    ///   ``VaultError/accessControlInvalidated`` for a value bound to a re-enrolled factor.
    public func get<Value: Codable & Sendable>(
        _ key: SecretKey<Value>, authenticationContext: (any AuthenticationContext)?, prompt: String? = nil
    ) throws -> Value? {
        // Proofs are asked for outside the transaction: a prompt must not hold the vault.
        let found = try read { db, keys -> (RecordRow, ItemEnvelope, [AuthenticationFactor: FactorRecord])? in
            guard let row = try item(lookup(key, keys), group: key.policy.accessGroup, in: db, keys: keys) else {
                return nil
            }
            let envelope = try openItem(row, name: key.name, group: key.policy.accessGroup, keys: keys)
            guard case .accessControlled = envelope.content else { return (row, envelope, [:]) }
            return (row, envelope, try FactorStore.records(in: db, keys: keys, vaultID: vaultID))
        }
        guard let (row, envelope, factors) = found else { return nil }
        return try Self.translatingErrors {
            try Self.decode(
                Value.self,
                from: value(of: envelope, recordID: row.id) { factor in
                    guard let record = factors[factor] else { return nil }
                    return try factorKeys(factor, record: record, context: authenticationContext, prompt: prompt)
                })
        }
    }

    /// Whether a value is stored under `key`. Needs no proof (names are metadata), but needs the
    /// vault unlocked, since names are looked up by keyed hash.
    ///
    /// - Parameter key: The typed name.
    /// - Returns: `true` when a value is stored.
    /// - Throws: ``VaultError/locked``, ``VaultError/accessDenied(_:)``.
    public func contains<Value>(_ key: SecretKey<Value>) throws -> Bool {
        try read { db, keys in
            try item(lookup(key, keys), group: key.policy.accessGroup, in: db, keys: keys) != nil
        }
    }

    /// Removes the value stored under `key`; removing a missing value does nothing.
    ///
    /// - Parameter key: The typed name.
    /// - Throws: ``VaultError/locked``, ``VaultError/accessDenied(_:)``, ``VaultError/storage(_:)``.
    public func remove<Value>(_ key: SecretKey<Value>) throws {
        try write { transaction in
            guard transaction.keys.isInScope(key.policy.accessGroup) else { throw Self.outOfScope }
            if let row = try transaction.row(lookup: lookup(key, transaction.keys)) {
                try transaction.delete(row)
            }
        }
    }

    /// Removes every key-value item this unlock can reach (all of them with full access; a scoped
    /// unlock's groups only). Tokens, key slots and enrolled factors stay.
    ///
    /// - Throws: ``VaultError/locked``, ``VaultError/storage(_:)``.
    public func removeAll() throws {
        let device = try deviceSecret(creating: false)
        try write { transaction in
            let keys = transaction.keys
            for row in try transaction.rows(kind: .keyValueItem) {
                if let scope = keys.scope {
                    let reachable = scope.contains { group in
                        guard let domain = try? Domain(policyCode: row.policyCode, accessGroup: group) else {
                            return false
                        }
                        return row.domainID == keys.id(of: domain, device: device)
                    }
                    guard reachable else { continue }
                }
                try transaction.delete(row)
            }
        }
    }

    /// Reads, transforms and writes the value under `key` in one transaction, so concurrent
    /// updates from other tasks or processes are never lost. The value is written with `key`'s
    /// policy. Access-controlled values cannot be updated this way (they need a proof to read).
    ///
    /// - Parameters:
    ///   - key: The typed name.
    ///   - transform: Gets the current value (`nil` if none) and returns the new one.
    /// - Returns: The value written.
    /// - Throws: What ``get(_:)`` and ``set(_:for:)`` throw, and what `transform` throws (nothing
    ///   is written then).
    @discardableResult
    public func update<Value: Codable & Sendable>(
        _ key: SecretKey<Value>, _ transform: (Value?) throws -> Value
    ) throws -> Value {
        let domain = Domain(key.policy)
        let device = domain.accessibility.isDeviceBound ? try deviceSecret(creating: true) : nil
        return try write { transaction in
            let keys = transaction.keys
            let current = try item(lookup(key, keys), group: key.policy.accessGroup, in: transaction.db, keys: keys)
                .map { row in
                    try Self.decode(
                        Value.self,
                        from: value(
                            of: openItem(row, name: key.name, group: key.policy.accessGroup, keys: keys),
                            recordID: row.id, keys: { _ in nil }))
                }
            let updated = try transform(current)
            try store(try Self.encode(updated), for: key, domain: domain, device: device, in: &transaction)
            return updated
        }
    }

    // MARK: Internals

    private static let outOfScope = VaultError.accessDenied("this unlock is scoped to other access groups")

    private func lookup<Value>(_ key: SecretKey<Value>, _ keys: KeyRing) -> [UInt8] {
        keys.lookup(kind: .keyValueItem, accessGroup: key.policy.accessGroup, name: key.name)
    }

    /// The row filed under `lookup`, after checking the group is in this unlock's scope.
    private func item(_ lookup: [UInt8], group: String?, in db: SQLiteConnection, keys: KeyRing) throws -> RecordRow? {
        guard keys.isInScope(group) else { throw Self.outOfScope }
        return try db.queryFirst(
            "SELECT \(RecordRow.columns) FROM records WHERE lookup = ?", [.blob(lookup)], row: RecordRow.init)
    }

    /// Seals and writes one item with its policy's domain key.
    private func store<Value>(
        _ encoded: [UInt8], for key: SecretKey<Value>, domain: Domain, device: DeviceSecret?,
        in transaction: inout RecordTransaction
    ) throws {
        let keys = transaction.keys
        if domain.accessibility.needsPasscode {
            guard try KeySlot.all(in: transaction.db).contains(where: \.kind.usesPassphrase) else {
                throw VaultError.unsupportedPolicy("whenPasscodeSetThisDeviceOnly needs a vault with a passphrase slot")
            }
        }
        let factors = try FactorStore.records(in: transaction.db, keys: keys, vaultID: vaultID)
        let requirement = try AccessRequirement.plan(domain.accessControl, enrolled: Set(factors.keys))
        let sealingKey = try keys.key(for: domain, device: device)
        let lookup = lookup(key, keys)
        let existing = try item(lookup, group: key.policy.accessGroup, in: transaction.db, keys: keys)
        let id = existing?.id ?? SecureRandom.bytes(count: VaultFormat.idByteCount)
        let content: ItemEnvelope.Content =
            try requirement.map {
                .accessControlled(
                    try AccessControlledSecret.seal(
                        encoded, requirement: $0, factors: factors, associatedData: innerAssociatedData(id)))
            } ?? .value(encoded)
        let row = try RecordRow.seal(
            ItemEnvelope(name: key.name, content: content).bytes, id: id, kind: .keyValueItem, lookup: lookup,
            domainID: keys.id(of: domain, device: device), policyCode: domain.policyCode,
            version: (existing?.version ?? 0) + 1, key: sealingKey, vaultID: vaultID)
        if let existing {
            try transaction.replace(existing, with: row)
        } else {
            try transaction.insert(row)
        }
        if let group = key.policy.accessGroup, keys.scope == nil {
            try GroupDirectory.add(group, in: &transaction)
        }
    }

    /// Opens an item row with its domain's key (its policy comes from the row, its group from the
    /// caller), so the stored policy, not the caller's, governs reading.
    private func openItem(_ row: RecordRow, name: String, group: String?, keys: KeyRing) throws -> ItemEnvelope {
        guard row.kind == .keyValueItem else {
            throw VaultError.integrity("a look-up tag points at another kind of record")
        }
        let domain = try Domain(policyCode: row.policyCode, accessGroup: group)
        var device: DeviceSecret?
        if domain.accessibility.isDeviceBound {
            guard let present = try deviceSecret(creating: false) else { throw VaultError.unavailableOnThisDevice }
            device = present
        }
        let key = try keys.key(for: domain, device: device)
        guard safeCompare(row.domainID, keys.id(of: domain, device: device)) else {
            throw domain.accessibility.isDeviceBound
                ? VaultError.unavailableOnThisDevice
                : VaultError.integrity("a record's domain does not match its policy")
        }
        let envelope = try ItemEnvelope(decoding: row.open(key: key, vaultID: vaultID))
        guard envelope.name == name else {
            throw VaultError.integrity("a record does not hold the item it is filed under")
        }
        return envelope
    }

    /// The value bytes of an opened envelope, rebuilding an access-controlled item key from proofs.
    private func value(
        of envelope: ItemEnvelope, recordID: [UInt8], keys: (AuthenticationFactor) throws -> FactorRecord.Keys?
    ) throws -> [UInt8] {
        switch envelope.content {
        case .value(let bytes): bytes
        case .accessControlled(let secret):
            try secret.open(associatedData: innerAssociatedData(recordID), keys: keys)
        }
    }

    private func innerAssociatedData(_ recordID: [UInt8]) -> [UInt8] {
        Array("TVA1".utf8) + vaultID + recordID
    }

    private static func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        do {
            return Array(try JSONEncoder().encode(value))
        } catch {
            throw VaultError.typeMismatch("the value of type \(Value.self) cannot be encoded")
        }
    }

    private static func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
        do {
            return try JSONDecoder().decode(Value.self, from: Data(bytes))
        } catch {
            throw VaultError.typeMismatch("the stored value does not decode as \(Value.self)")
        }
    }
}
