/// What a read transaction of a ``VaultBackend`` sees: the vault's clear header, its key slot rows
/// and its records, all from one snapshot.
///
/// Not `Sendable`: it is bound to the backend's transaction and valid only inside the closure it was
/// passed to.
protocol BackendReadTransaction {
    /// The records, their index and the sealed digests.
    var records: any RecordReader { get }

    /// The vault's header, refused when it is not a vault's or of a newer format.
    ///
    /// - Returns: The header.
    /// - Throws: ``VaultError/unsupportedFormat(_:)``, ``VaultError/integrity(_:)`` (missing or
    ///   malformed), storage errors.
    func header() throws -> VaultHeader

    /// The format version the header records.
    ///
    /// - Returns: The version.
    /// - Throws: ``VaultError/integrity(_:)`` when the header is missing, storage errors.
    func formatVersion() throws -> Int

    /// The current key epoch, bumped by every rotation of the master key.
    ///
    /// - Returns: The epoch.
    /// - Throws: ``VaultError/integrity(_:)`` when the header is missing, storage errors.
    func epoch() throws -> UInt64

    /// The current key epoch and the format version, read together: what every write transaction
    /// starts from.
    ///
    /// - Returns: The epoch and the version, as ``epoch()`` and ``formatVersion()`` return them.
    /// - Throws: ``VaultError/integrity(_:)`` when the header is missing, storage errors.
    func epochAndFormatVersion() throws -> (epoch: UInt64, formatVersion: Int)

    /// Every key slot of a kind this version knows, in slot id order.
    ///
    /// - Returns: The slots.
    /// - Throws: Storage errors.
    func keySlots() throws -> [KeySlot]

    /// How many key slot rows there are, those of unknown kinds included.
    ///
    /// - Returns: The row count.
    /// - Throws: Storage errors.
    func keySlotRowCount() throws -> Int

    /// Where the stored vault stands in its history of commits: equal stamps from one backend mean no
    /// writer, in this process or another, committed in between.
    ///
    /// - Returns: The stamp, which carries no content.
    /// - Throws: Storage errors.
    func changeStamp() throws -> ChangeStamp

    /// The storage engine's own check of its structures (pages, indexes), beneath the digests.
    ///
    /// - Parameter limit: The most problems to quote.
    /// - Returns: The problems, naming the engine and structures but no row contents; `nil` when
    ///   sound.
    /// - Throws: Storage errors.
    func structureProblems(limit: Int) throws -> String?
}
