import VaultStorage

/// The tables of a vault file: creates them for a new vault, reads (and prepares for migration)
/// the header of an existing one, and adds what each format version brought to an older file.
enum SQLiteSchema {
    /// Version 4. Every column except ids, kinds, versions, epochs, scope ids, keyed hashes of index
    /// terms, KDF costs, slot public keys and sizes is sealed.
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
        CREATE TABLE integrity (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
            sealed BLOB NOT NULL
        );
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
            VALUES (1, (SELECT coalesce(max(record_id), x'') FROM records));
        """

    /// Adds the index tables to a version 2 file, inside the transaction that upgrades it: every
    /// record is filed in `record_index` there, so the mark starts at the largest id.
    static func addIndexTables(_ db: SQLiteConnection) throws {
        try addTermsColumn(db)
        try db.execute("DROP INDEX IF EXISTS records_by_kind;\n" + indexTables)
    }

    /// Upgrades a version 3 file to version 4: its records gain the `terms` column, empty, and the
    /// mark starts at the largest id, as `record_index` files every record already. No key is needed.
    static func addIndexState(_ db: SQLiteConnection) throws {
        guard try formatVersion(db) == 3 else { return }  // another connection upgraded it first
        try addTermsColumn(db)
        try db.execute(indexState)
        try writeHeader(formatVersion: 4, epoch: epoch(db), db)
    }

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
