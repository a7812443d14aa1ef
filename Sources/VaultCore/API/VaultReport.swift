/// What ``Vault/verify()`` checked.
public struct VaultReport: Sendable, Equatable {
    /// The file format version.
    public let formatVersion: Int
    /// The number of key slots.
    public let keySlotCount: Int
    /// The number of records whose presence and version matched the vault's integrity digest.
    public let recordCount: Int
    /// The records that were also decrypted and authenticated (all whose keys this unlock holds).
    public let authenticatedRecordCount: Int
    /// The write generation: how many committed writes the vault has seen.
    public let generation: UInt64
}
