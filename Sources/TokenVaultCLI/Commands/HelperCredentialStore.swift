import Foundation
import TokenVault

/// The username and secret a credential helper keeps for one server, as a sealed item of its own
/// secret service (`tokenvault.git`, `tokenvault.docker`), apart from `secret set` items.
struct HelperCredentialStore {
    /// What is stored under one server's key.
    struct Entry: Codable {
        let username: String
        let secret: String
    }

    let store: SecretStore

    init(vault: Vault, helper: String) {
        store = SecretStore(vault: vault, service: "tokenvault.\(helper)")
    }

    /// The entry under `key`, or `nil`.
    func entry(_ key: String) throws -> Entry? {
        guard try store.hasItem(forKey: key) else { return nil }
        return try JSONDecoder().decode(Entry.self, from: store.data(forKey: key))
    }

    func save(_ entry: Entry, under key: String) throws {
        try store.set(JSONEncoder().encode(entry), forKey: key)
    }

    /// Removes the entry under `key`; whether there was one.
    @discardableResult
    func remove(_ key: String) throws -> Bool {
        guard try store.hasItem(forKey: key) else { return false }
        try store.deleteItem(forKey: key)
        return true
    }

    func keys() throws -> [String] { try store.keys() }
}
