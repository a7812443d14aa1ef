import Foundation
import VaultCrypto
import VaultStorage

extension Vault {
    /// Stores `value` under `key`, replacing any previous value in one transaction.
    ///
    /// - Parameters:
    ///   - value: Any `Codable` value (stored as JSON, sealed).
    ///   - key: The typed name and policy.
    /// - Throws: ``VaultError/locked``, ``VaultError/unsupportedPolicy(_:)``,
    ///   ``VaultError/typeMismatch(_:)`` when the value cannot be encoded, ``VaultError/storage(_:)``.
    public func set<Value: Codable & Sendable>(_ value: Value, for key: SecretKey<Value>) throws {
        let encoded = try Self.encode(value)
        try write { transaction in
            try store(
                encoded, for: key, replacing: transaction.row(lookup: lookup(key, transaction.keys)), in: &transaction)
        }
    }

    /// Reads the value stored under `key`.
    ///
    /// - Parameter key: The typed name.
    /// - Returns: The value, or `nil` when nothing is stored under the name.
    /// - Throws: ``VaultError/locked``, ``VaultError/integrity(_:)`` for a tampered record,
    ///   ``VaultError/typeMismatch(_:)`` when the stored value is not a `Value`.
    public func get<Value: Codable & Sendable>(_ key: SecretKey<Value>) throws -> Value? {
        try read { db, keys in
            guard
                let row = try db.queryFirst(
                    "SELECT \(RecordRow.columns) FROM records WHERE lookup = ?", [.blob(lookup(key, keys))],
                    row: RecordRow.init)
            else { return nil }
            return try value(of: row, for: key, keys: keys)
        }
    }

    /// Whether a value is stored under `key`. Needs the vault unlocked (names are keyed hashes).
    ///
    /// - Parameter key: The typed name.
    /// - Returns: `true` when a value is stored.
    /// - Throws: ``VaultError/locked``.
    public func contains<Value>(_ key: SecretKey<Value>) throws -> Bool {
        try read { db, keys in
            try db.queryFirst("SELECT 1 FROM records WHERE lookup = ?", [.blob(lookup(key, keys))]) { _ in true }
                ?? false
        }
    }

    /// Removes the value stored under `key`; removing a missing value does nothing.
    ///
    /// - Parameter key: The typed name.
    /// - Throws: ``VaultError/locked``, ``VaultError/storage(_:)``.
    public func remove<Value>(_ key: SecretKey<Value>) throws {
        try write { transaction in
            if let row = try transaction.row(lookup: lookup(key, transaction.keys)) {
                try transaction.delete(row)
            }
        }
    }

    /// Removes every key-value item of this vault (tokens and key slots stay).
    ///
    /// - Throws: ``VaultError/locked``, ``VaultError/storage(_:)``.
    public func removeAll() throws {
        try write { transaction in
            for row in try transaction.rows(kind: .keyValueItem) {
                try transaction.delete(row)
            }
        }
    }

    /// Reads, transforms and writes the value under `key` in one transaction, so concurrent
    /// updates from other tasks or processes are never lost.
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
        try write { transaction in
            let existing = try transaction.row(lookup: lookup(key, transaction.keys))
            let current = try existing.map { try value(of: $0, for: key, keys: transaction.keys) }
            let updated = try transform(current)
            try store(try Self.encode(updated), for: key, replacing: existing, in: &transaction)
            return updated
        }
    }

    // MARK: Internals

    private func lookup<Value>(_ key: SecretKey<Value>, _ keys: KeyRing) -> [UInt8] {
        keys.lookup(kind: .keyValueItem, accessGroup: key.policy.accessGroup, name: key.name)
    }

    private func store<Value>(
        _ encoded: [UInt8], for key: SecretKey<Value>, replacing existing: RecordRow?,
        in transaction: inout RecordTransaction
    ) throws {
        let domain = try enforceableDomain(key.policy)
        let row = try RecordRow.seal(
            ItemEnvelope(name: key.name, value: encoded).bytes,
            id: existing?.id ?? SecureRandom.bytes(count: VaultFormat.idByteCount), kind: .keyValueItem,
            lookup: lookup(key, transaction.keys), domain: domain, version: (existing?.version ?? 0) + 1,
            keys: transaction.keys, vaultID: vaultID)
        if let existing {
            try transaction.replace(existing, with: row)
        } else {
            try transaction.insert(row)
        }
    }

    private func value<Value: Codable>(of row: RecordRow, for key: SecretKey<Value>, keys: KeyRing) throws -> Value {
        guard row.kind == .keyValueItem else {
            throw VaultError.integrity("a look-up tag points at another kind of record")
        }
        let domain = try Domain(policyCode: row.policyCode, accessGroup: key.policy.accessGroup)
        let envelope = try ItemEnvelope(decoding: row.open(domain: domain, keys: keys, vaultID: vaultID))
        guard envelope.name == key.name else {
            throw VaultError.integrity("a record does not hold the item it is filed under")
        }
        do {
            return try JSONDecoder().decode(Value.self, from: Data(envelope.value))
        } catch {
            throw VaultError.typeMismatch("the stored value does not decode as \(Value.self)")
        }
    }

    /// The domain for a policy this version can enforce, or ``VaultError/unsupportedPolicy(_:)``.
    private func enforceableDomain(_ policy: VaultPolicy) throws -> Domain {
        guard policy == .default else {
            throw VaultError.unsupportedPolicy(
                "only the default policy (afterFirstUnlock, no access group, no access control) is enforced by this version"
            )
        }
        return Domain(policy)
    }

    private static func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        do {
            return Array(try JSONEncoder().encode(value))
        } catch {
            throw VaultError.typeMismatch("the value of type \(Value.self) cannot be encoded")
        }
    }
}
