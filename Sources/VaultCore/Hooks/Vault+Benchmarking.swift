import VaultCrypto
import VaultStorage

/// One token record as the benchmark harness bulk-loads it: the caller's encoded metadata, index
/// terms and token. Package-internal, not public API.
package struct BenchmarkTokenRecord: Sendable {
    /// The token id.
    package let id: String
    /// The encoded metadata.
    package let metadata: [UInt8]
    /// The index terms (left out of a format version 2 record).
    package let terms: [IndexTerm]
    /// The encoded token.
    package let secret: [UInt8]

    /// A record.
    ///
    /// - Parameters:
    ///   - id: The token id.
    ///   - metadata: The encoded metadata.
    ///   - terms: The index terms.
    ///   - secret: The encoded token.
    package init(id: String, metadata: [UInt8], terms: [IndexTerm], secret: [UInt8]) {
        self.id = id
        self.metadata = metadata
        self.terms = terms
        self.secret = secret
    }
}

/// What the benchmark harness needs to set the raw-SQLite floor beside a vault (the same table
/// shape, blobs of the same size) and to grow a vault to a million tokens in reasonable time.
/// Package-internal, not public API.
extension Vault {
    /// The `kind` column value of token records.
    package static var tokenRecordKindForBenchmarking: Int64 { Int64(RecordKind.token.rawValue) }

    /// The number of token records and the mean length of their sealed blobs. Reads only clear
    /// columns, so it works on a locked vault.
    package func tokenRecordSizesForBenchmarking() throws -> (count: Int, meanSealedByteCount: Double) {
        try Self.translatingErrors {
            let (count, bytes) = try backend.read { try $0.records.sizes(kind: .token) }
            return (count, count == 0 ? 0 : Double(bytes) / Double(count))
        }
    }

    /// Stores token records of one policy in one write transaction, each exactly as
    /// ``insertTokenRecord(id:metadata:terms:secret:policy:defaultIfNone:)`` stores it (sealed,
    /// digested, indexed) but with one commit for all: the bulk path the harness grows large vaults
    /// with. Sets no default token.
    ///
    /// - Parameters:
    ///   - records: Tokens with ids not stored yet.
    ///   - policy: Their policy; one without access control, device binding or access group.
    /// - Throws: ``VaultError/alreadyExists(_:)`` for an id already stored, ``VaultError/locked``.
    package func insertTokenRecordsForBenchmarking(_ records: [BenchmarkTokenRecord], policy: VaultPolicy) throws {
        precondition(policy.accessGroup == nil && !policy.accessibility.isDeviceBound && policy.accessControl.isEmpty)
        try write { transaction in
            for record in records {
                let lookup = transaction.keys.lookup(kind: .token, accessGroup: nil, name: record.id)
                guard try transaction.row(lookup: lookup) == nil else {
                    throw VaultError.alreadyExists("a token with this id")
                }
                try storeItem(
                    ItemContent(name: record.id, metadata: record.metadata, value: record.secret, terms: record.terms),
                    kind: .token, lookup: lookup, policy: policy, device: nil, replacing: nil, in: &transaction)
            }
        }
    }

    /// Stores token records of one policy in one write transaction as format version 2 wrote
    /// them (envelopes without index terms, nothing in the index), then marks the file format
    /// version 2 and drops the index table: a vault for timing the upgrade to version 3 at a scale
    /// no committed fixture has. Call it, as often as needed, only on a new vault whose token
    /// records all come from this method.
    ///
    /// - Parameters:
    ///   - records: Tokens with ids not stored yet; their terms are left out.
    ///   - policy: Their policy; one without access control, device binding or access group.
    /// - Throws: ``VaultError/alreadyExists(_:)`` for an id already stored, ``VaultError/locked``.
    package func insertFormat2TokenRecordsForBenchmarking(
        _ records: [BenchmarkTokenRecord], policy: VaultPolicy
    ) throws {
        precondition(policy.accessGroup == nil && !policy.accessibility.isDeviceBound && policy.accessControl.isEmpty)
        let domain = Domain(policy)
        try write { transaction in
            let keys = transaction.keys
            for record in records {
                let lookup = keys.lookup(kind: .token, accessGroup: nil, name: record.id)
                guard try transaction.row(lookup: lookup) == nil else {
                    throw VaultError.alreadyExists("a token with this id")
                }
                let envelope = ItemEnvelope(name: record.id, metadata: record.metadata, content: .value(record.secret))
                try transaction.insert(
                    RecordRow.seal(
                        envelope.bytes, id: try transaction.newRecordID(), kind: .token,
                        lookup: lookup, domainID: keys.id(of: domain, device: nil), policyCode: domain.policyCode,
                        version: 1, scope: transaction.register(group: nil),
                        key: try keys.key(for: domain, device: nil),
                        vaultID: vaultID))
            }
        }
        try dropIndexForBenchmarking()
    }
}

/// The statements a vault in an SQLite file runs for a durable store of a new token, for the
/// harness to run raw beside the vault: the vault's own SQL with bytes the harness makes
/// beforehand, so what SQLite and the disk take of a store can be told apart from the library's
/// work around it. Package-internal, not public API.
package enum SQLiteStatementsForBenchmarking {
    /// The size of one term hash.
    package static let termHashByteCount = IndexTerm.hashByteCount

    /// Adds the vault-wide digest row, as a vault's first write does, to a database made with
    /// ``Vault/schemaForBenchmarking``, for ``tokenStore(on:recordID:lookup:domain:sealed:terms:digest:)``
    /// to rewrite. Run it once, in a write transaction.
    package static func addDigestRow(on db: SQLiteConnection, sealed: [UInt8]) throws {
        try db.run(SQLiteRecordStore.digestRowInsert, [.blob(sealed)])
    }

    /// Runs in the caller's write transaction what a store of a new token runs while no other
    /// connection committed since this one's last write, a lone writer's usual case: the read of
    /// the change stamp, the row with its term hashes in its `terms` column, and the rewrite of the
    /// vault-wide sealed digest.
    ///
    /// - Parameters:
    ///   - db: The connection, in a write transaction.
    ///   - recordID: 16 bytes, above every stored id.
    ///   - lookup: The row's look-up tag, 32 bytes.
    ///   - domain: The domain id, 16 bytes.
    ///   - sealed: The sealed record.
    ///   - terms: The term hashes, ``termHashByteCount`` bytes each, at least one.
    ///   - digest: The sealed digest.
    package static func tokenStore(
        on db: SQLiteConnection, recordID: [UInt8], lookup: [UInt8], domain: [UInt8], sealed: [UInt8],
        terms: [[UInt8]], digest: [UInt8]
    ) throws {
        guard let column = UnfiledTerms.column(terms) else {
            preconditionFailure("a row without terms goes in without its terms column")
        }
        _ = try db.changeStamp()
        let row = RecordRow(
            id: recordID, kind: .token, lookup: lookup, domainID: domain, policyCode: Domain(VaultPolicy()).policyCode,
            version: 1, sealed: sealed, scope: nil)
        try db.run(SQLiteRecordStore.insertRowWithTerms, SQLiteRecordStore.values(of: row) + [.blob(column)])
        try db.run(SQLiteRecordStore.digestRowUpdate, [.blob(digest)])
    }
}

/// The statements a vault in PostgreSQL sends for a durable store of a new token and for a get by
/// id, for the harness to send raw beside the vault: the vault's own SQL with bytes the harness
/// makes beforehand, so what the statements cost on the server can be told apart from the
/// library's work around them. Package-internal, not public API.
package enum PostgresStatementsForBenchmarking {
    /// The size of one term hash.
    package static let termHashByteCount = IndexTerm.hashByteCount

    /// The pipeline of a store of a new token run ahead of its transaction, a lone writer's usual
    /// case: the write lock, the row with its term hashes in its `terms` column, the vault-wide
    /// sealed digest, and the bump of the change counter from `changes`, which notifies the vault's
    /// channel. Committed together in one round trip.
    ///
    /// - Parameters:
    ///   - recordID: 16 bytes, above every stored id.
    ///   - lookup: The row's look-up tag, 32 bytes.
    ///   - domain: The domain id, 16 bytes.
    ///   - sealed: The sealed record.
    ///   - terms: The term hashes, ``termHashByteCount`` bytes each, at least one.
    ///   - digest: The sealed digest.
    ///   - changes: The change counter as the vault's header holds it.
    package static func tokenStore(
        recordID: [UInt8], lookup: [UInt8], domain: [UInt8], sealed: [UInt8], terms: [[UInt8]],
        digest: [UInt8], changes: Int64
    ) -> [PostgresStatement] {
        guard let column = UnfiledTerms.column(terms) else {
            preconditionFailure("a row without terms goes in without its terms column")
        }
        let row = RecordRow(
            id: recordID, kind: .token, lookup: lookup, domainID: domain, policyCode: Domain(VaultPolicy()).policyCode,
            version: 1, sealed: sealed, scope: nil)
        return [
            PostgresStatement(PostgresSchema.lockStatement),
            PostgresStatement(
                PostgresRecordStore.insertWithTerms, PostgresRecordStore.values(of: row) + [.bytea(column)]),
            PostgresStatement(PostgresRecordStore.setVaultDigest, [.bytea(digest)]),
            PostgresStatement(PostgresVaultBackend.bumpChangesIfUnchanged, [.int8(changes)], returnsRows: true),
        ]
    }

    /// The one statement of a get by id: the key epoch and the rows of `lookups` (a token's tag and
    /// the group directory's), read together.
    package static func tokenGet(lookups: [[UInt8]]) -> PostgresStatement {
        PostgresStatement(
            PostgresRecordStore.epochAndRowsStatement(lookupCount: lookups.count), lookups.map { .bytea($0) },
            returnsRows: true)
    }
}
