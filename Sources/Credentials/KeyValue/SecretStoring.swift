import Foundation
import VaultCore

/// A typed secret key-value store (the shape of ForgeCrypt's `CryptStoring`): what app code takes
/// as a dependency, so tests can hand it an ``InMemorySecretStore`` instead of a ``Vault`` or a
/// ``SecretStore``. Every conformer passes the same conformance tests.
///
/// Errors are ``VaultError``s: ``VaultError/locked`` is never reported as a missing value, and a
/// value read as the wrong type is ``VaultError/typeMismatch(_:)``.
public protocol SecretStoring: Sendable {
    /// Stores `value` under `key`, replacing any previous value.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: Its typed name and policy.
    /// - Throws: ``VaultError``.
    func set<Value: Codable & Sendable>(_ value: Value, for key: SecretKey<Value>) throws

    /// The value stored under `key`.
    ///
    /// - Parameter key: The typed name.
    /// - Returns: The value, or `nil` when nothing is stored.
    /// - Throws: ``VaultError/typeMismatch(_:)`` when the stored value is not a `Value`, else
    ///   ``VaultError``.
    func get<Value: Codable & Sendable>(_ key: SecretKey<Value>) throws -> Value?

    /// Whether a value is stored under `key`.
    ///
    /// - Parameter key: The typed name.
    /// - Returns: `true` when one is.
    /// - Throws: ``VaultError``.
    func contains<Value>(_ key: SecretKey<Value>) throws -> Bool

    /// Removes the value under `key`; removing a missing value does nothing.
    ///
    /// - Parameter key: The typed name.
    /// - Throws: ``VaultError``.
    func remove<Value>(_ key: SecretKey<Value>) throws

    /// Removes every value of this store (of a ``SecretStore``: of its service only).
    ///
    /// - Throws: ``VaultError``.
    func removeAll() throws
}

extension Vault: SecretStoring {}
