import Foundation
import Locking
import VaultCore

/// A ``SecretStoring`` kept in this process's memory, for app tests: values are JSON-encoded as a
/// vault stores them, so a wrong type fails as it would there, and ``lock()`` makes every call
/// throw ``VaultError/locked`` as a locked vault does. Nothing is encrypted: never use it for real
/// secrets. Thread-safe.
public final class InMemorySecretStore: SecretStoring {
    private struct State {
        var values: [Name: Data] = [:]
        var locked = false
    }

    /// A value's identity: its name within its access group.
    private struct Name: Hashable {
        let group: String?
        let name: String
    }

    private let state = Locked(State())

    /// An empty, unlocked store.
    public init() {}

    /// Makes every call throw ``VaultError/locked`` until ``unlock()``; the values stay.
    public func lock() { state.withLock { $0.locked = true } }

    /// Undoes ``lock()``.
    public func unlock() { state.withLock { $0.locked = false } }

    /// Stores `value` under `key`, replacing any previous value.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: Its typed name.
    /// - Throws: ``VaultError/locked``, ``VaultError/typeMismatch(_:)`` when it cannot be encoded.
    public func set<Value: Codable & Sendable>(_ value: Value, for key: SecretKey<Value>) throws {
        let encoded: Data
        do {
            encoded = try JSONEncoder().encode(value)
        } catch {
            throw VaultError.typeMismatch("the value of type \(Value.self) cannot be encoded")
        }
        try unlocked { $0.values[Self.name(key)] = encoded }
    }

    /// The value stored under `key`.
    ///
    /// - Parameter key: The typed name.
    /// - Returns: The value, or `nil` when nothing is stored.
    /// - Throws: ``VaultError/locked``, ``VaultError/typeMismatch(_:)``.
    public func get<Value: Codable & Sendable>(_ key: SecretKey<Value>) throws -> Value? {
        guard let data = try unlocked({ $0.values[Self.name(key)] }) else { return nil }
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            throw VaultError.typeMismatch("the stored value does not decode as \(Value.self)")
        }
    }

    /// Whether a value is stored under `key`.
    ///
    /// - Parameter key: The typed name.
    /// - Returns: `true` when one is.
    /// - Throws: ``VaultError/locked``.
    public func contains<Value>(_ key: SecretKey<Value>) throws -> Bool {
        try unlocked { $0.values[Self.name(key)] != nil }
    }

    /// Removes the value under `key`; removing a missing value does nothing.
    ///
    /// - Parameter key: The typed name.
    /// - Throws: ``VaultError/locked``.
    public func remove<Value>(_ key: SecretKey<Value>) throws {
        try unlocked { $0.values[Self.name(key)] = nil }
    }

    /// Removes every value.
    ///
    /// - Throws: ``VaultError/locked``.
    public func removeAll() throws {
        try unlocked { $0.values.removeAll() }
    }

    private static func name<Value>(_ key: SecretKey<Value>) -> Name {
        Name(group: key.policy.accessGroup, name: key.name)
    }

    private func unlocked<Result>(_ body: (inout State) -> Result) throws -> Result {
        try state.withLock { state in
            guard !state.locked else { throw VaultError.locked }
            return body(&state)
        }
    }
}
