import Foundation
import VaultCore

/// A string/data secret store in the shape of SimpleKeychain, over the vault's typed key-value
/// store: items live under a service name, with one set of security options for the store.
///
/// Each service is a namespace of its own: ``deleteAll()`` and ``keys()`` see only its items,
/// whatever other services share the vault. A service name cannot contain U+001F (the separator
/// between service and key); every call of a store with such a name throws
/// ``SecretStoreError/vault(_:)`` with ``VaultError/invalidArgument(_:)``. As a ``SecretStoring``
/// it takes typed keys within the same namespace.
///
/// ```swift
/// let store = SecretStore(vault: vault, service: "com.example.api")
/// try store.set("sk_live_...", forKey: "stripe")
/// let key = try store.string(forKey: "stripe")
/// ```
public struct SecretStore: SecretStoring {
    /// The vault.
    public let vault: Vault
    /// The namespace of this store's keys.
    public let service: String
    /// The policy items are written with.
    public let policy: VaultPolicy
    /// Supplies proofs for access-controlled items.
    public let authenticationContext: (any AuthenticationContext)?

    /// A store.
    ///
    /// - Parameters:
    ///   - vault: The vault.
    ///   - service: The namespace of this store's keys.
    ///   - accessGroup: The access group items go in.
    ///   - accessibility: When items can be read.
    ///   - accessControl: The proof reading needs.
    ///   - authenticationContext: Supplies that proof.
    public init(
        vault: Vault, service: String = "default", accessGroup: String? = nil,
        accessibility: Accessibility = .afterFirstUnlock, accessControl: AccessControlFlags = [],
        authenticationContext: (any AuthenticationContext)? = nil
    ) {
        self.vault = vault
        self.service = service
        policy = VaultPolicy(accessibility: accessibility, accessGroup: accessGroup, accessControl: accessControl)
        self.authenticationContext = authenticationContext
    }

    /// Stores text under `key`, replacing any previous item.
    ///
    /// - Parameters:
    ///   - string: The secret.
    ///   - key: The key.
    /// - Throws: ``SecretStoreError``.
    public func set(_ string: String, forKey key: String) throws {
        try set(Data(string.utf8), forKey: key)
    }

    /// Stores bytes under `key`, replacing any previous item.
    ///
    /// - Parameters:
    ///   - data: The secret.
    ///   - key: The key.
    /// - Throws: ``SecretStoreError``.
    public func set(_ data: Data, forKey key: String) throws {
        try translating { try vault.set(data, for: secretKey(key)) }
    }

    /// Stores every item in one transaction: all of them are written, or none.
    ///
    /// - Parameters:
    ///   - items: The keys and their bytes; each key at most once.
    ///   - replacing: Whether an item already stored under one of the keys is replaced; when
    ///     `false`, such a key fails the whole call and nothing is written.
    /// - Throws: ``SecretStoreError/alreadyExists(keys:)`` naming the taken keys when `replacing`
    ///   is `false`, ``SecretStoreError/vault(_:)`` with ``VaultError/invalidArgument(_:)`` for a
    ///   key given twice, else what storing one item throws.
    public func set(_ items: [(key: String, data: Data)], replacing: Bool) throws {
        if !replacing {
            let taken = Set(try keys()).intersection(items.map(\.key))
            guard taken.isEmpty else { throw SecretStoreError.alreadyExists(keys: taken.sorted()) }
        }
        // The vault checks again inside its transaction, for a writer that came in between.
        try translating {
            try vault.set(try items.map { (key: try secretKey($0.key), value: $0.data) }, replacing: replacing)
        }
    }

    /// The text stored under `key`.
    ///
    /// - Parameter key: The key.
    /// - Returns: The secret.
    /// - Throws: ``SecretStoreError/itemNotFound`` when nothing is stored,
    ///   ``SecretStoreError/locked`` when the vault is locked, ``SecretStoreError/typeMismatch``.
    public func string(forKey key: String) throws -> String {
        guard let string = String(data: try data(forKey: key), encoding: .utf8) else {
            throw SecretStoreError.typeMismatch
        }
        return string
    }

    /// The bytes stored under `key`.
    ///
    /// - Parameter key: The key.
    /// - Returns: The secret.
    /// - Throws: ``SecretStoreError/itemNotFound`` when nothing is stored,
    ///   ``SecretStoreError/locked`` when the vault is locked.
    public func data(forKey key: String) throws -> Data {
        let value = try translating {
            try vault.get(secretKey(key), authenticationContext: authenticationContext)
        }
        guard let value else { throw SecretStoreError.itemNotFound }
        return value
    }

    /// Whether an item is stored under `key`.
    ///
    /// - Parameter key: The key.
    /// - Returns: `true` when stored.
    /// - Throws: ``SecretStoreError/locked`` when the vault is locked (never `false` for that).
    public func hasItem(forKey key: String) throws -> Bool {
        try translating { try vault.contains(secretKey(key)) }
    }

    /// Deletes the item under `key`.
    ///
    /// - Parameter key: The key.
    /// - Throws: ``SecretStoreError/itemNotFound`` when nothing is stored.
    public func deleteItem(forKey key: String) throws {
        guard try hasItem(forKey: key) else { throw SecretStoreError.itemNotFound }
        try translating { try vault.remove(secretKey(key)) }
    }

    /// Deletes every item of this store's service, and nothing of another service.
    ///
    /// - Throws: ``SecretStoreError``.
    public func deleteAll() throws {
        try translating { try removeAll() }
    }

    /// The keys of this store's service, sorted.
    ///
    /// - Returns: The keys.
    /// - Throws: ``SecretStoreError/locked`` when the vault is locked.
    public func keys() throws -> [String] {
        try translating { try names() }
    }

    // MARK: SecretStoring

    /// Stores `value` under `key` in this store's service, with the key's own policy.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: Its typed name (within the service) and policy.
    /// - Throws: ``VaultError``.
    public func set<Value: Codable & Sendable>(_ value: Value, for key: SecretKey<Value>) throws {
        try vault.set(value, for: try namespaced(key))
    }

    /// The value stored under `key` in this store's service, read with the store's
    /// authentication context.
    ///
    /// - Parameter key: The typed name within the service.
    /// - Returns: The value, or `nil` when nothing is stored.
    /// - Throws: ``VaultError``.
    public func get<Value: Codable & Sendable>(_ key: SecretKey<Value>) throws -> Value? {
        try vault.get(try namespaced(key), authenticationContext: authenticationContext)
    }

    /// Whether a value is stored under `key` in this store's service.
    ///
    /// - Parameter key: The typed name within the service.
    /// - Returns: `true` when one is.
    /// - Throws: ``VaultError``.
    public func contains<Value>(_ key: SecretKey<Value>) throws -> Bool {
        try vault.contains(try namespaced(key))
    }

    /// Removes the value under `key` in this store's service; a missing value is no error.
    ///
    /// - Parameter key: The typed name within the service.
    /// - Throws: ``VaultError``.
    public func remove<Value>(_ key: SecretKey<Value>) throws {
        try vault.remove(try namespaced(key))
    }

    /// Removes every item of this store's service (in its access group), and nothing else.
    ///
    /// - Throws: ``VaultError``.
    public func removeAll() throws {
        for key in try names() { try vault.remove(try secretKey(key)) }
    }

    // MARK: Names

    /// The separator between service and key in an item's name.
    private static let separator = "\u{1F}"

    private func itemName(_ key: String) throws -> String {
        guard !service.contains(Self.separator) else {
            throw VaultError.invalidArgument("a secret store's service name cannot contain U+001F")
        }
        return service + Self.separator + key
    }

    private func namespaced<Value>(_ key: SecretKey<Value>) throws -> SecretKey<Value> {
        SecretKey(try itemName(key.name), policy: key.policy)
    }

    private func secretKey(_ key: String) throws -> SecretKey<Data> { SecretKey(try itemName(key), policy: policy) }

    /// The keys of this service, throwing ``VaultError``.
    private func names() throws -> [String] {
        let prefix = try itemName("")
        return try vault.itemNames(accessGroup: policy.accessGroup)
            .filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    private func translating<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as VaultError {
            throw SecretStoreError(error)
        }
    }
}
