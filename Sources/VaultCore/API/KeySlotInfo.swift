/// What ``Vault/keySlots()`` shows of one key slot: nothing secret.
public struct KeySlotInfo: Sendable, Equatable, Identifiable {
    /// What opens a slot.
    public enum Kind: String, Sendable, Equatable {
        case passphrase
        case keyFile
        case composite
    }

    /// The slot's random id, in hex.
    public let id: String
    /// What opens it.
    public let kind: Kind
    /// Whether it grants only some access groups.
    public let isScoped: Bool
    /// Its Argon2id costs, for slots with a passphrase.
    public let keyDerivation: KeyDerivation?
}
