/// What this process knows a vault's rows hold, gathered by its own write transactions (what they
/// read under the write lock, with what they wrote applied): the header's epoch and format version,
/// the largest record id, the index mark, the sealed digests, and rows by look-up tag.
///
/// A backend keeps the state of its last committed write beside a mark of the vault's history at
/// that commit (a file: ``SQLiteChangeStamp``, which moves with any other connection's commit; a
/// server: the header's `changes` counter, which every write bumps). The next write transaction
/// starts from it (a file's takes it over; a server's works on a ``copy()``, since its writes may
/// run ahead) only when, holding the write lock, it reads the same mark: no one else has written
/// since, so every read the state answers is what the storage would answer. Otherwise it starts
/// empty and reads what it needs. So a writer that is alone reads almost nothing before it writes,
/// and one that is not reads everything again.
///
/// Holds sealed bytes, keyed hashes and counters only, as the storage does. Unchecked `Sendable`:
/// only one transaction at a time changes a state, and while the backend keeps it, it is only
/// handed over, or read to make a copy, under the backend's lock.
final class KnownRecordState: @unchecked Sendable {
    /// The header's epoch and format version.
    var header: (epoch: UInt64, formatVersion: Int)?
    /// The largest record id: `.some(nil)` for an empty table, `nil` when unknown.
    var largestRecordID: [UInt8]??
    /// The index's mark (`record_index_state.filed_through`).
    var filedThrough: [UInt8]?
    /// Sealed digests by scope (empty for the vault-wide one): `.some(nil)` for none stored.
    var sealedDigests = LayeredDictionary<BytesKey, [UInt8]?>()
    /// Rows by look-up tag: `.some(nil)` for no row.
    var rows = LayeredDictionary<BytesKey, RecordRow?>()
    /// Whether a row carries the tag, for tags read only through `containsRow`.
    var contained = LayeredDictionary<BytesKey, Bool>()
    /// Whether the default token row was found to name a stored token. Only a write of the default
    /// row or a deleted token can make that untrue, and each forgets it.
    var defaultNamesStoredToken = false
    /// Whether the rows of tokens and key-value items are kept too, not only metadata rows.
    let keepsValueRows: Bool

    /// An empty state.
    ///
    /// - Parameter keepsValueRows: Whether tokens' and key-value items' rows, which are large and
    ///   many, are kept as well as metadata rows (the default token, the group directory, factors):
    ///   worth it where a read costs a round trip to a server; where it is a look-up in a local file,
    ///   keeping each written row cost more than reading the few that are read again.
    init(keepsValueRows: Bool = true) {
        self.keepsValueRows = keepsValueRows
    }

    /// Whether `row` is kept when it is read or written.
    func keeps(_ row: RecordRow) -> Bool {
        keepsValueRows || row.kind.isMetadata
    }

    /// An independent copy, for a transaction to work on.
    func copy() -> KnownRecordState {
        let copy = KnownRecordState(keepsValueRows: keepsValueRows)
        copy.header = header
        copy.largestRecordID = largestRecordID
        copy.filedThrough = filedThrough
        copy.sealedDigests = sealedDigests
        copy.rows = rows
        copy.contained = contained
        copy.defaultNamesStoredToken = defaultNamesStoredToken
        return copy
    }

    // MARK: Reads

    /// Whether a row carries `lookup`, when known.
    func contains(_ lookup: [UInt8]) -> Bool? {
        let key = BytesKey(lookup)
        if let row = rows[key] { return row != nil }
        return contained[key]
    }

    // MARK: What writes change

    func inserted(_ row: RecordRow) {
        if row.kind == .defaultToken { defaultNamesStoredToken = false }
        if let lookup = row.lookup.map(BytesKey.init) {
            // A row not kept still replaces what was known of its tag: that no row had it.
            if keeps(row) || rows[lookup] != nil { rows[lookup] = .some(row) }
            if keeps(row) || contained[lookup] != nil { contained[lookup] = true }
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
        if row.kind == .defaultToken { defaultNamesStoredToken = false }
        guard let lookup = row.lookup.map(BytesKey.init), rows[lookup]??.id == row.id else {
            rows.removeAll()
            contained.removeAll()
            return
        }
        rows[lookup] = .some(row)
    }

    /// The storage's structure changed (a format upgrade added tables or columns, or moved the
    /// digest): nothing read before is trusted.
    func forgetAll() {
        header = nil
        largestRecordID = nil
        filedThrough = nil
        sealedDigests.removeAll()
        rows.removeAll()
        contained.removeAll()
        defaultNamesStoredToken = false
    }

    func deleted(_ row: RecordRow) {
        if row.kind == .defaultToken || row.kind == .token { defaultNamesStoredToken = false }
        if let lookup = row.lookup.map(BytesKey.init) {
            if keeps(row) || rows[lookup] != nil { rows[lookup] = .some(nil) }
            if keeps(row) || contained[lookup] != nil { contained[lookup] = false }
        }
        if case .some(let largest) = largestRecordID, largest == row.id { largestRecordID = nil }
    }
}
