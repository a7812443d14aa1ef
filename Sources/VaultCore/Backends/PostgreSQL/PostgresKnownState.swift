/// What this process knows a PostgreSQL vault's rows hold, gathered by its own write transactions
/// (what they read under the write lock, with what they wrote applied): the header's epoch and
/// format version, the largest record id, the index mark, the sealed digests, and rows by look-up
/// tag. It is true as of the header's `changes` counter at ``changes``, which every write bumps:
/// a write run ahead on it (``PostgresVaultBackend``) commits only while the counter still reads so.
///
/// Holds sealed bytes, keyed hashes and counters only, as the server does. Unchecked `Sendable`:
/// only the transaction that made a state changes it, and once the backend keeps it, it is only
/// read, under the backend's lock, to make the ``copy()`` the next transaction works on.
final class PostgresKnownState: @unchecked Sendable {
    /// The `changes` counter this state is true at; `nil` until a transaction that wrote commits.
    var changes: Int64?
    /// The header's epoch and format version.
    var header: (epoch: UInt64, formatVersion: Int)?
    /// The largest record id: `.some(nil)` for an empty table, `nil` when unknown.
    var largestRecordID: [UInt8]??
    /// The index's mark (`record_index_state.filed_through`).
    var filedThrough: [UInt8]?
    /// Sealed digests by scope (`[]` for the vault-wide one): `.some(nil)` for none stored.
    var sealedDigests = LayeredDictionary<[UInt8], [UInt8]?>()
    /// Rows by look-up tag: `.some(nil)` for no row.
    var rows = LayeredDictionary<[UInt8], RecordRow?>()
    /// Whether a row carries the tag, for tags read only through `containsRow`.
    var contained = LayeredDictionary<[UInt8], Bool>()

    init() {}

    /// An independent copy, for a transaction to work on.
    func copy() -> PostgresKnownState {
        let copy = PostgresKnownState()
        copy.changes = changes
        copy.header = header
        copy.largestRecordID = largestRecordID
        copy.filedThrough = filedThrough
        copy.sealedDigests = sealedDigests
        copy.rows = rows
        copy.contained = contained
        return copy
    }

    // MARK: Reads

    /// Whether a row carries `lookup`, when known.
    func contains(_ lookup: [UInt8]) -> Bool? {
        if let row = rows[lookup] { return row != nil }
        return contained[lookup]
    }

    // MARK: What writes change

    func inserted(_ row: RecordRow) {
        if let lookup = row.lookup {
            rows[lookup] = .some(row)
            contained[lookup] = true
        }
        if case .some(let largest) = largestRecordID,
            largest.map({ $0.lexicographicallyPrecedes(row.id) }) ?? true
        {
            largestRecordID = .some(row.id)
        }
    }

    /// `row` replaced the row with its id. Known in place when it kept its look-up tag; otherwise
    /// every row by tag is forgotten, since the old tag is not known here.
    func updated(_ row: RecordRow) {
        guard let lookup = row.lookup, rows[lookup]??.id == row.id else {
            rows.removeAll()
            contained.removeAll()
            return
        }
        rows[lookup] = .some(row)
    }

    func deleted(_ row: RecordRow) {
        if let lookup = row.lookup {
            rows[lookup] = .some(nil)
            contained[lookup] = false
        }
        if case .some(let largest) = largestRecordID, largest == row.id { largestRecordID = nil }
    }
}
