/// What a record row holds. Stored in clear and bound into the record's associated data.
package enum RecordKind: UInt8, CaseIterable {
    /// A value of the typed key-value store.
    case keyValueItem = 1
    /// An enrolled authentication factor (sealed with the metadata key).
    case factor = 2
    /// The names of the access groups in use (sealed with the metadata key).
    case groupDirectory = 3
    /// An OAuth token set: metadata readable with the domain key, the token behind its policy.
    case token = 4
    /// The id of the default token (sealed with the metadata key).
    case defaultToken = 5
    /// A cross-process lease, such as the one a token refresh holds (sealed with the metadata key).
    case lease = 6
    /// The access groups a scoped key slot grants, so a key rotation can grant them again (sealed
    /// with the metadata key).
    case slotScope = 7

    /// Rows sealed with the vault's metadata key rather than a policy domain's key.
    var isMetadata: Bool { self != .keyValueItem && self != .token }
}
