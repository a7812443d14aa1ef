/// Constants of the on-disk format. See SECURITY.md, "File format".
enum VaultFormat {
    /// The format this library writes. Files with a larger number are refused. Version 1 files are
    /// migrated to version 2 by the first unlock (see ``VaultMigration``); version 2 files to the
    /// current version, which indexes token records and seals them in the compact encoding, by the
    /// first full-access use of their tokens (see ``Vault/upgradeTokenRecords(_:)``). Version 3
    /// files, indexed but without version 4's `terms` column and index mark (the latest records keep
    /// their term hashes in their own row until filed), gain both when opened; version 3 and 4
    /// files also move their vault-wide digest from the `integrity` table into version 5's digest
    /// row of `records`, on the page new records are written to, when opened.
    static let currentVersion = 5
    /// The layout of the associated data of records, digests and key-slot wraps: unchanged since
    /// format version 2, so an upgrade re-seals only the token records it re-encodes.
    static let sealingVersion = 2
    /// The format numbers a key slot's wrap may bind: the sealing version, and 3, which the version 3
    /// library bound into the slots it made (so those slots still open).
    static let slotWrapVersions = [sealingVersion, 3]
    /// SQLite's `application_id` for vault files: "TVLT".
    static let applicationID: Int32 = 0x5456_4C54
    /// Length of vault, slot and record ids.
    static let idByteCount = 16
    /// `crypto_kdf` context for the subkeys of the master key.
    static let subkeyContext = "TVvault1"
    /// The most key slots a vault may have: every unlock may have to try each slot of its kind, each
    /// costing one Argon2id run, so a file padded with junk slots must not make unlocking take hours.
    static let maximumSlotCount = 32

    /// Associated-data tags, one per kind of sealed object, so one can never open as another.
    enum Tag {
        static let keySlot: [UInt8] = Array("TVS2".utf8)
        static let legacyKeySlot: [UInt8] = Array("TVS1".utf8)
        static let record: [UInt8] = Array("TVR1".utf8)
        static let integrity: [UInt8] = Array("TVI1".utf8)
    }
}
