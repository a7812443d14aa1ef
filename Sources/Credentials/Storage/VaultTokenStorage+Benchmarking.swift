import Foundation
import OAuth2
import VaultCore

/// The bulk paths the benchmark harness grows large vaults with: the records ``add(token:metadata:security:)``
/// would write, encoded here, stored many to a transaction. Package-internal, not public API.
extension VaultTokenStorage {
    /// Stores tokens of the standard security in one write transaction, each record as
    /// ``add(token:metadata:security:)`` writes it (the default token is left as it is).
    ///
    /// - Parameter tokens: Tokens not stored yet, with their metadata.
    /// - Throws: ``CredentialError/storage(_:)``.
    package func addAllForBenchmarking(_ tokens: [(token: Token, metadata: Token.Metadata)]) throws {
        let records = try Self.benchmarkRecords(tokens)
        let (policy, _) = try Credential.Security.resolve(Credential.Security.standard)
        try CredentialError.translating { try vault.insertTokenRecordsForBenchmarking(records, policy: policy) }
    }

    /// Stores tokens of the standard security in `vault` as format version 2 wrote them (the JSON
    /// record form, no index), and marks the vault format version 2: making a ``VaultTokenStorage`` over it then
    /// times the upgrade. Call it in batches, only on a new vault whose tokens all come from here.
    ///
    /// - Parameters:
    ///   - tokens: The tokens, with their metadata.
    ///   - vault: An unlocked vault.
    /// - Throws: ``CredentialError/storage(_:)``.
    package static func addAllInFormat2ForBenchmarking(
        _ tokens: [(token: Token, metadata: Token.Metadata)], to vault: Vault
    ) throws {
        let records = try tokens.map {
            BenchmarkTokenRecord(
                id: $0.token.id, metadata: try legacyJSON($0.metadata), terms: [], secret: try legacyJSON($0.token))
        }
        let (policy, _) = try Credential.Security.resolve(Credential.Security.standard)
        try CredentialError.translating { try vault.insertFormat2TokenRecordsForBenchmarking(records, policy: policy) }
    }

    private static func benchmarkRecords(
        _ tokens: [(token: Token, metadata: Token.Metadata)]
    ) throws -> [BenchmarkTokenRecord] {
        try tokens.map {
            BenchmarkTokenRecord(
                id: $0.token.id, metadata: try encode($0.metadata), terms: $0.metadata.indexTerms,
                secret: encode($0.token))
        }
    }

    /// The JSON form format version 2 wrote a record half in.
    private static func legacyJSON<Value: Codable>(_ value: Value) throws -> [UInt8] {
        Array(try JSONEncoder().encode(LegacyVersioned(v: TokenRecordCoding.legacyVersion, value: value)))
    }
}

/// The wrapper of the JSON record form.
private struct LegacyVersioned<Value: Encodable>: Encodable {
    let v: Int
    let value: Value
}
