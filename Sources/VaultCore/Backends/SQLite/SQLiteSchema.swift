import VaultStorage

/// The tables of a vault file: creates them for a new vault, reads (and prepares for migration)
/// the header of an existing one, and adds what each format version brought to an older file.
enum SQLiteSchema {
    /// Version 5. Every column except ids, kinds, versions, epochs, scope ids, keyed hashes of index
    /// terms, KDF costs, slot public keys and sizes is sealed. The vault-wide digest is the digest
    /// row of `records` (``SQLiteRecordStore/digestRowID``), added with the first digest stored.
    static let createStatements = """
        PRAGMA application_id = \(VaultFormat.applicationID);
        PRAGMA user_version = \(VaultFormat.currentVersion);
        CREATE TABLE vault_header (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
            format_version INTEGER NOT NULL,
            vault_id BLOB NOT NULL CHECK (length(vault_id) = 16),
            epoch INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE key_slots (
            slot_id BLOB PRIMARY KEY CHECK (length(slot_id) = 16),
            kind INTEGER NOT NULL,
            scoped INTEGER NOT NULL,
            salt BLOB NOT NULL,
            ops_limit INTEGER NOT NULL,
            mem_limit INTEGER NOT NULL,
            wrapped BLOB NOT NULL,
            public_key BLOB,
            sealed_grant BLOB,
            epoch INTEGER
        ) WITHOUT ROWID;
        CREATE TABLE records (
            record_id BLOB PRIMARY KEY CHECK (length(record_id) = 16),
            kind INTEGER NOT NULL,
            lookup BLOB UNIQUE,
            domain BLOB NOT NULL,
            policy INTEGER NOT NULL,
            version INTEGER NOT NULL,
            sealed BLOB NOT NULL,
            scope BLOB,
            terms BLOB
        ) WITHOUT ROWID;
        \(groupIntegrityTable)
        \(indexTables)
        """

    /// The indexes of format version 3 and later: `records_by_kind` covers the clear columns a cache
    /// of opened rows compares (kind, id, version), so listing them reads no sealed blob;
    /// `record_index` has one row per keyed hash of a token record's index term, and a look-up reads
    /// the rows of one term, in record id order.
    private static let indexTables = """
        CREATE INDEX records_by_kind ON records (kind, record_id, version);
        CREATE TABLE record_index (
            term BLOB NOT NULL CHECK (length(term) = \(IndexTerm.hashByteCount)),
            record_id BLOB NOT NULL,
            PRIMARY KEY (term, record_id)
        ) WITHOUT ROWID;
        \(indexState)
        """

    /// Drops `records_by_kind` from a version 2 file, inside the transaction that upgrades it,
    /// before every token row is rewritten: keeping the index in step took an index update per row,
    /// where ``addIndexTables(_:)`` builds it again afterwards in one sorted pass.
    static func dropKindIndex(_ db: SQLiteConnection) throws {
        try db.execute("DROP INDEX IF EXISTS records_by_kind")
    }

    /// Format version 4's mark of how far `record_index` is filed: the records with a larger id (the
    /// latest ones, as ids count up) keep the keyed hashes of their terms in their own `terms`
    /// column instead, written with the row, so a store writes no page of `record_index`; once there
    /// are enough of them they are filed in `record_index` together (``SQLiteRecordStore``). An
    /// empty mark files the first write's terms at once and moves the mark to it.
    private static let indexState = """
        CREATE TABLE record_index_state (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
            filed_through BLOB NOT NULL
        );
        INSERT INTO record_index_state (singleton, filed_through)
            VALUES (1, coalesce((\(SQLiteRecordStore.largestRecordIDQuery)), x''));
        """

    /// Adds the index tables to a version 2 file, inside the transaction that upgrades it: every
    /// record is filed in `record_index` there, so the mark starts at the largest id. The digest
    /// moves into its row of `records` too, as the upgrade makes the file the current version.
    static func addIndexTables(_ db: SQLiteConnection) throws {
        try addTermsColumn(db)
        try db.execute("DROP INDEX IF EXISTS records_by_kind;\n" + indexTables)
        try moveDigestIntoRecords(db)
    }

    /// Upgrades a version 3 or 4 file to the current version, in the caller's one transaction, so
    /// another process (or a crash) sees the old file or the new one. No key is needed: version 4
    /// gave the records the `terms` column, empty, and the mark at the largest id, as `record_index`
    /// files every record already; version 5 moved the vault-wide sealed digest, byte for byte,
    /// from the `integrity` table into the digest row. Nothing is re-sealed, as the digest's
    /// associated data names no table.
    static func upgradeIndexedFile(_ db: SQLiteConnection) throws {
        let version = try formatVersion(db)  // another connection may have upgraded it first
        if version == 3 {
            try addTermsColumn(db)
            try db.execute(indexState)
        }
        guard version == 3 || version == 4 else { return }
        try moveDigestIntoRecords(db)
        try writeHeader(formatVersion: VaultFormat.currentVersion, epoch: epoch(db), db)
    }

    /// Whether the file keeps its vault-wide digest in the `integrity` table, as format versions 1
    /// to 4 did (a version 2 file keeps it there until its upgrade).
    static func hasDigestTable(_ db: SQLiteConnection) throws -> Bool {
        try db.queryFirst("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'integrity'") { _ in true }
            ?? false
    }

    /// Moves the sealed digest from the `integrity` table into the digest row and drops the table.
    private static func moveDigestIntoRecords(_ db: SQLiteConnection) throws {
        guard try hasDigestTable(db) else { return }
        if let sealed = try db.queryFirst("SELECT sealed FROM integrity WHERE singleton = 1", row: { $0.blob(0) }) {
            try db.run(SQLiteRecordStore.digestRowInsert, [.blob(sealed)])
        }
        try db.execute("DROP TABLE integrity")
    }

    /// Puts the digest back into an `integrity` table, the layout of format versions 1 to 4: for
    /// the hooks that write a file as an older version did.
    static func moveDigestOutOfRecords(_ db: SQLiteConnection) throws {
        guard try !hasDigestTable(db) else { return }
        try db.execute(
            """
            \(digestTable)
            INSERT INTO integrity (singleton, sealed)
                SELECT 1, sealed FROM records WHERE record_id = \(SQLiteRecordStore.digestRowIDLiteral);
            DELETE FROM records WHERE record_id = \(SQLiteRecordStore.digestRowIDLiteral);
            """)
    }

    /// Format versions 1 to 4 kept the vault-wide digest in a table of its own.
    private static let digestTable = """
        CREATE TABLE integrity (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
            sealed BLOB NOT NULL
        );
        """

    private static func addTermsColumn(_ db: SQLiteConnection) throws {
        guard try !hasColumn("terms", in: "records", db) else { return }
        try db.execute("ALTER TABLE records ADD COLUMN terms BLOB")
    }

    /// The file's format version, as its header says.
    static func formatVersion(_ db: SQLiteConnection) throws -> Int {
        guard
            let version = try db.queryFirst(
                "SELECT format_version FROM vault_header WHERE singleton = 1", row: { Int($0.integer(0)) })
        else { throw VaultError.integrity("the vault header is missing") }
        return version
    }

    /// One sealed digest per access group in use, keyed by the group's scope id.
    private static let groupIntegrityTable = """
        CREATE TABLE group_integrity (
            scope BLOB PRIMARY KEY CHECK (length(scope) = 16),
            sealed BLOB NOT NULL
        ) WITHOUT ROWID;
        """

    /// Reads the header of an existing vault, refusing files that are not vaults or are newer.
    static func readHeader(_ db: SQLiteConnection) throws -> VaultHeader {
        let application = try db.queryFirst("PRAGMA application_id") { Int32(truncatingIfNeeded: $0.integer(0)) }
        guard application == VaultFormat.applicationID else {
            throw VaultError.unsupportedFormat("the file is not a TokenVault vault")
        }
        let hasEpoch = try hasColumn("epoch", in: "vault_header", db)
        guard
            let header = try db.queryFirst(
                "SELECT format_version, vault_id, \(hasEpoch ? "epoch" : "0") FROM vault_header WHERE singleton = 1",
                row: {
                    VaultHeader(
                        formatVersion: Int($0.integer(0)), vaultID: $0.blob(1),
                        epoch: UInt64(bitPattern: $0.integer(2)))
                })
        else {
            throw VaultError.integrity("the vault header is missing")
        }
        return try header.validated()
    }

    /// The current key epoch.
    static func epoch(_ db: SQLiteConnection) throws -> UInt64 {
        guard
            let epoch = try db.queryFirst("SELECT epoch FROM vault_header WHERE singleton = 1", row: { $0.integer(0) })
        else { throw VaultError.integrity("the vault header is missing") }
        return UInt64(bitPattern: epoch)
    }

    /// ``epoch(_:)`` and ``formatVersion(_:)`` in one statement.
    static func epochAndFormatVersion(_ db: SQLiteConnection) throws -> (epoch: UInt64, formatVersion: Int) {
        guard
            let header = try db.queryFirst(
                "SELECT epoch, format_version FROM vault_header WHERE singleton = 1",
                row: { (epoch: UInt64(bitPattern: $0.integer(0)), formatVersion: Int($0.integer(1))) })
        else { throw VaultError.integrity("the vault header is missing") }
        return header
    }

    /// Adds the version 2 columns to a version 1 file, so its slots can be read with the same query.
    ///
    /// The new columns are nullable and unused by version 1, so a version 1 reader still opens the
    /// file; the format version only changes when ``VaultMigration`` has re-sealed every record.
    static func addVersion2Columns(_ db: SQLiteConnection) throws {
        guard try !hasColumn("epoch", in: "vault_header", db) else { return }
        try db.execute(
            """
            ALTER TABLE vault_header ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE key_slots ADD COLUMN public_key BLOB;
            ALTER TABLE key_slots ADD COLUMN sealed_grant BLOB;
            ALTER TABLE key_slots ADD COLUMN epoch INTEGER;
            ALTER TABLE records ADD COLUMN scope BLOB;
            \(groupIntegrityTable)
            """)
    }

    /// Sets the format version and key epoch of the header.
    static func writeHeader(formatVersion: Int, epoch: UInt64, _ db: SQLiteConnection) throws {
        try db.run(
            "UPDATE vault_header SET format_version = ?, epoch = ? WHERE singleton = 1",
            [.integer(Int64(formatVersion)), .integer(Int64(bitPattern: epoch))])
        try db.execute("PRAGMA user_version = \(formatVersion)")
    }

    private static func hasColumn(_ column: String, in table: String, _ db: SQLiteConnection) throws -> Bool {
        try db.query("PRAGMA table_info(\(table))") { $0.text(1) }.contains(column)
    }
}
