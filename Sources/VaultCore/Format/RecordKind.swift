/// What a record row holds. Stored in clear and bound into the record's associated data.
enum RecordKind: UInt8, CaseIterable {
    /// A value of the typed key-value store.
    case keyValueItem = 1
}
