import VaultStorage

/// Creates the tables of a new vault and checks (or migrates) the format of an existing one.
enum VaultSchema {
    /// Version 1. Every column except ids, kinds, versions, KDF costs and sizes is sealed.
    static let createStatements = """
        PRAGMA application_id = \(VaultFormat.applicationID);
        PRAGMA user_version = \(VaultFormat.currentVersion);
        CREATE TABLE vault_header (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
            format_version INTEGER NOT NULL,
            vault_id BLOB NOT NULL CHECK (length(vault_id) = 16)
        );
        CREATE TABLE key_slots (
            slot_id BLOB PRIMARY KEY CHECK (length(slot_id) = 16),
            kind INTEGER NOT NULL,
            scoped INTEGER NOT NULL,
            salt BLOB NOT NULL,
            ops_limit INTEGER NOT NULL,
            mem_limit INTEGER NOT NULL,
            wrapped BLOB NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE records (
            record_id BLOB PRIMARY KEY CHECK (length(record_id) = 16),
            kind INTEGER NOT NULL,
            lookup BLOB UNIQUE,
            domain BLOB NOT NULL,
            policy INTEGER NOT NULL,
            version INTEGER NOT NULL,
            sealed BLOB NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX records_by_kind ON records (kind);
        CREATE TABLE integrity (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
            sealed BLOB NOT NULL
        );
        """

    /// Reads the header of an existing vault, refusing files that are not vaults or are newer.
    ///
    /// - Returns: The vault id.
    static func readHeader(_ db: SQLiteConnection) throws -> [UInt8] {
        let application = try db.queryFirst("PRAGMA application_id") { Int32(truncatingIfNeeded: $0.integer(0)) }
        guard application == VaultFormat.applicationID else {
            throw VaultError.unsupportedFormat("the file is not a TokenVault vault")
        }
        guard
            let (version, vaultID) = try db.queryFirst(
                "SELECT format_version, vault_id FROM vault_header WHERE singleton = 1",
                row: { (Int($0.integer(0)), $0.blob(1)) })
        else {
            throw VaultError.integrity("the vault header is missing")
        }
        try migrate(db, from: version)
        guard vaultID.count == VaultFormat.idByteCount else {
            throw VaultError.integrity("the vault header is malformed")
        }
        return vaultID
    }

    /// Brings an older format up to ``VaultFormat/currentVersion``. Version 1 is the first, so
    /// today this only refuses versions it does not know; later versions add steps here.
    static func migrate(_ db: SQLiteConnection, from version: Int) throws {
        if version > VaultFormat.currentVersion {
            throw VaultError.unsupportedFormat(
                "format version \(version) is newer than this library supports "
                    + "(\(VaultFormat.currentVersion)); upgrade TokenVault")
        }
        if version < 1 {
            throw VaultError.unsupportedFormat("format version \(version) is not a known version")
        }
    }
}
