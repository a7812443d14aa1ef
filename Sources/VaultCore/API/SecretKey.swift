/// A typed name for a value in the vault's key-value store.
///
/// ```swift
/// let apiKey = SecretKey<String>("stripe.apiKey")
/// try vault.set("sk_live_...", for: apiKey)
/// let value = try vault.get(apiKey)   // String?
/// ```
/// The name is never stored in clear: look-ups go through a keyed hash of it.
public struct SecretKey<Value: Codable & Sendable>: Sendable, Hashable {
    /// The item's name.
    public let name: String
    /// The item's security policy.
    public let policy: VaultPolicy

    /// A key.
    ///
    /// - Parameters:
    ///   - name: The item's name; unique within its access group.
    ///   - policy: The security policy; ``VaultPolicy/default`` unless given.
    public init(_ name: String, policy: VaultPolicy = .default) {
        self.name = name
        self.policy = policy
    }
}
