import Foundation
import VaultCrypto

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
        if let group = key.policy.accessGroup { try Self.checkGroupName(group) }
        let device = key.policy.accessibility.isDeviceBound ? try deviceSecret(creating: true) : nil
        try write(rerunnable: true) { transaction in
            try store(encoded, for: key, device: device, in: &transaction)
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
        let value = try readItemValue(
            authenticationContext: authenticationContext, prompt: prompt, prefetching: { keys in [lookup(key, keys)] }
        ) { records, keys in
            guard let row = try item(lookup(key, keys), group: key.policy.accessGroup, in: records, keys: keys) else {
                return nil
            }
            return (row, try openItem(row, name: key.name, group: key.policy.accessGroup, keys: keys))
        }
        return try value.map { try Self.decode(Value.self, from: $0) }
    }

    /// Whether a value is stored under `key`. Needs no proof (names are metadata), but needs the
    /// vault unlocked, since names are looked up by keyed hash.
    ///
    /// - Parameter key: The typed name.
    /// - Returns: `true` when a value is stored.
    /// - Throws: ``VaultError/locked``, ``VaultError/accessDenied(_:)``.
    public func contains<Value>(_ key: SecretKey<Value>) throws -> Bool {
        try read { records, keys in
            try item(lookup(key, keys), group: key.policy.accessGroup, in: records, keys: keys) != nil
        }
    }

    /// Removes the value stored under `key`; removing a missing value does nothing.
    ///
    /// - Parameter key: The typed name.
    /// - Throws: ``VaultError/locked``, ``VaultError/accessDenied(_:)``, ``VaultError/storage(_:)``.
    public func remove<Value>(_ key: SecretKey<Value>) throws {
        try write(rerunnable: true) { transaction in
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
                    guard (try? row.domain(among: Array(scope), keys: keys, device: device)) != nil else { continue }
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
        let device = key.policy.accessibility.isDeviceBound ? try deviceSecret(creating: true) : nil
        return try write { transaction in
            let keys = transaction.keys
            let current = try item(
                lookup(key, keys), group: key.policy.accessGroup, in: transaction.records, keys: keys
            )
            .map { row in
                try Self.decode(
                    Value.self,
                    from: itemValue(
                        of: openItem(row, name: key.name, group: key.policy.accessGroup, keys: keys),
                        recordID: row.id, keys: { _ in nil }))
            }
            let updated = try transform(current)
            try store(try Self.encode(updated), for: key, device: device, in: &transaction)
            return updated
        }
    }

    /// Stores every value under its key in one transaction: all of them are written, or none.
    ///
    /// - Parameters:
    ///   - values: The keys and values; each key at most once.
    ///   - replacing: Whether a value already stored under one of the keys is replaced; when
    ///     `false`, such a key fails the whole call and nothing is written.
    /// - Throws: ``VaultError/invalidArgument(_:)`` for a key given twice,
    ///   ``VaultError/alreadyExists(_:)`` (naming how many keys are taken, not which) when
    ///   `replacing` is `false` and a key is taken, and what ``set(_:for:)`` throws.
    public func set<Value: Codable & Sendable>(
        _ values: [(key: SecretKey<Value>, value: Value)], replacing: Bool
    ) throws {
        guard Set(values.map(\.key)).count == values.count else {
            throw VaultError.invalidArgument("a key is given twice")
        }
        let encoded = try values.map { (key: $0.key, value: try Self.encode($0.value)) }
        for group in Set(values.compactMap(\.key.policy.accessGroup)) { try Self.checkGroupName(group) }
        let needsDevice = values.contains { $0.key.policy.accessibility.isDeviceBound }
        let device = needsDevice ? try deviceSecret(creating: true) : nil
        try write(rerunnable: true) { transaction in
            if !replacing {
                let taken = try encoded.filter { try transaction.row(lookup: lookup($0.key, transaction.keys)) != nil }
                guard taken.isEmpty else { throw VaultError.alreadyExists("\(taken.count) of the keys") }
            }
            for (key, value) in encoded { try store(value, for: key, device: device, in: &transaction) }
        }
    }

    // MARK: Internals

    private func lookup<Value>(_ key: SecretKey<Value>, _ keys: KeyRing) -> [UInt8] {
        keys.lookup(kind: .keyValueItem, accessGroup: key.policy.accessGroup, name: key.name)
    }

    /// The row filed under `lookup`, after checking the group is in this unlock's scope.
    private func item(_ lookup: [UInt8], group: String?, in records: any RecordReader, keys: KeyRing) throws
        -> RecordRow?
    {
        guard keys.isInScope(group) else { throw Self.outOfScope }
        return try records.row(lookup: lookup)
    }

    private func store<Value>(
        _ encoded: [UInt8], for key: SecretKey<Value>, device: DeviceSecret?, in transaction: inout RecordTransaction
    ) throws {
        let lookup = lookup(key, transaction.keys)
        try storeItem(
            ItemContent(name: key.name, metadata: [], value: encoded), kind: .keyValueItem, lookup: lookup,
            policy: key.policy, device: device, replacing: transaction.row(lookup: lookup), in: &transaction)
    }

    /// Opens a key-value row, checking it holds the item it is filed under.
    private func openItem(_ row: RecordRow, name: String, group: String?, keys: KeyRing) throws -> ItemEnvelope {
        guard row.kind == .keyValueItem else {
            throw VaultError.integrity("a look-up tag points at another kind of record")
        }
        let envelope = try openItem(row, groups: [group], keys: keys).envelope
        guard envelope.name == name else {
            throw VaultError.integrity("a record does not hold the item it is filed under")
        }
        return envelope
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

extension Vault {
    /// The names of the key-value items stored in `accessGroup` (the vault's own group by default).
    /// Needs no proof: names are metadata. Items bound to another device are not listed.
    ///
    /// - Parameter accessGroup: The group to list.
    /// - Returns: The names, sorted.
    /// - Throws: ``VaultError/locked`` when any item's class is locked (the list would be short),
    ///   ``VaultError/accessDenied(_:)`` outside a scoped unlock.
    public func itemNames(accessGroup: String? = nil) throws -> [String] {
        let device = try deviceSecret(creating: false)
        return try read { records, keys in
            guard keys.isInScope(accessGroup) else { throw Self.outOfScope }
            let rows = try records.rows(kind: .keyValueItem)
            var names: [String] = []
            for row in rows {
                // Rows of other groups, and device-bound rows without this device's secret, match no
                // domain here.
                guard try row.domain(among: [accessGroup], keys: keys, device: device) != nil else { continue }
                names.append(try openItem(row, groups: [accessGroup], keys: keys).envelope.name)
            }
            return names.sorted()
        }
    }
}
