import Foundation
import VaultCore

/// A string/data secret store in the shape of SimpleKeychain, over the vault's typed key-value
/// store: items live under a service name, with one set of security options for the store.
///
/// ```swift
/// let store = SecretStore(vault: vault, service: "com.example.api")
/// try store.set("sk_live_...", forKey: "stripe")
/// let key = try store.string(forKey: "stripe")
/// ```
public struct SecretStore: Sendable {
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

    /// Deletes every item of this store's service.
    ///
    /// - Throws: ``SecretStoreError``.
    public func deleteAll() throws {
        for key in try keys() { try translating { try vault.remove(secretKey(key)) } }
    }

    /// The keys of this store's service, sorted.
    ///
    /// - Returns: The keys.
    /// - Throws: ``SecretStoreError/locked`` when the vault is locked.
    public func keys() throws -> [String] {
        let prefix = itemName("")
        return try translating { try vault.itemNames(accessGroup: policy.accessGroup) }
            .filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    private func itemName(_ key: String) -> String { service + "\u{1F}" + key }

    private func secretKey(_ key: String) -> SecretKey<Data> { SecretKey(itemName(key), policy: policy) }

    private func translating<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as VaultError {
            throw SecretStoreError(error)
        }
    }
}
