import VaultStorage

/// What the benchmark harness needs to set the raw-SQLite floor beside a vault: the same table
/// shape, and blobs of the same size. Package-internal, not public API.
extension Vault {
    /// The statements that create a vault's tables and indexes (`VaultSchema.createStatements`).
    package static var schemaForBenchmarking: String { VaultSchema.createStatements }

    /// The `kind` column value of token records.
    package static var tokenRecordKindForBenchmarking: Int64 { Int64(RecordKind.token.rawValue) }

    /// The number of token records and the mean length of their sealed blobs. Reads only clear
    /// columns, so it works on a locked vault.
    package func tokenRecordSizesForBenchmarking() throws -> (count: Int, meanSealedByteCount: Double) {
        try Self.translatingErrors {
            let (count, bytes) = try database.read { try SQLiteRecordStore($0).sizes(kind: .token) }
            return (count, count == 0 ? 0 : Double(bytes) / Double(count))
        }
    }
}
