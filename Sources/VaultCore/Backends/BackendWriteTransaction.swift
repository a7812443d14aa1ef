/// What a write transaction of a ``VaultBackend`` may change: the records (through a
/// ``RecordStore``), the key slot rows and the header.
///
/// Writes here keep nothing in step: ``RecordTransaction`` updates the integrity digests for every
/// row and slot it writes, in this same transaction.
protocol BackendWriteTransaction: BackendReadTransaction {
    /// The records, their index and the sealed digests, to write.
    var recordStore: any RecordStore { get }

    /// Creates the tables of a new, empty vault at the current format version, with its header.
    ///
    /// - Parameter vaultID: The new vault's id.
    /// - Throws: Storage errors, also when a vault is there already.
    func createVault(vaultID: [UInt8]) throws

    /// Sets the header's format version and key epoch.
    ///
    /// - Parameters:
    ///   - formatVersion: The format the rows are now in.
    ///   - epoch: The key epoch.
    /// - Throws: Storage errors.
    func writeHeader(formatVersion: Int, epoch: UInt64) throws

    /// Adds a key slot row.
    ///
    /// - Parameter slot: The slot; its id must not be in use.
    /// - Throws: Storage errors.
    func insertSlot(_ slot: KeySlot) throws

    /// Replaces the key slot row with `slot`'s id.
    ///
    /// - Parameter slot: The new contents.
    /// - Throws: ``VaultError/integrity(_:)`` when the row is gone, storage errors.
    func updateSlot(_ slot: KeySlot) throws

    /// Deletes a key slot row.
    ///
    /// - Parameter id: The slot's id.
    /// - Throws: ``VaultError/invalidCredentials`` when the row is gone (removed meanwhile), storage
    ///   errors.
    func deleteSlot(id: [UInt8]) throws

    /// Gives a format version 1 vault the columns of version 2, so its slots and records read with
    /// the same queries; nothing when it has them. The header's version stays until the rows are
    /// migrated.
    ///
    /// - Throws: Storage errors.
    func addVersion2Columns() throws

    /// Drops a format version 2 vault's index of records by kind before its rows are rewritten, so
    /// the rewrite does not keep it in step row by row; ``addIndexTables()`` builds it again.
    ///
    /// - Throws: Storage errors.
    func dropKindIndex() throws

    /// Gives a format version 2 vault the index of version 3 and later, empty; the caller files every
    /// record in it in this same transaction.
    ///
    /// - Throws: Storage errors.
    func addIndexTables() throws
}
