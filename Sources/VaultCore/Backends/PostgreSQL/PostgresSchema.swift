import VaultStorage

/// The tables of a vault in PostgreSQL: the same rows as a vault file's (``SQLiteSchema``), in the
/// schema the connection's `search_path` names first.
///
/// Several vaults share one database as one schema each, rather than as a vault id column in
/// every table: every statement and every index stays the one a vault file has (a vault id column
/// would lead every key and every index), a vault is dropped or granted to a role whole with
/// `DROP SCHEMA` and `GRANT ... ON SCHEMA`, and a role given one schema cannot read another vault's
/// sealed rows, keyed hashes or even its size. The connection string picks the vault:
/// `options='-c search_path=team_a'`; without one it is the first schema on the default path
/// (`public`).
///
/// The schema's own version is in `vault_schema_version`, apart from the vault's format version in
/// `vault_header`: ``migrations`` are the steps from an empty schema to the current tables, each run
/// once, in order, in the transaction that finds the schema behind.
enum PostgresSchema {
    /// One step of the tables' history: what it runs, and the version it leaves.
    struct Migration {
        let version: Int64
        let statements: String
    }

    /// Every step, oldest first. Add a step to change the tables; never edit one that shipped.
    static let migrations = [
        Migration(version: 1, statements: createStatements)
    ]

    /// Version 1: format version 4's rows. Integers are `bigint`, as SQLite's are 64-bit, and blobs
    /// `bytea`, which compare as SQLite compares blobs (bytes first, then length), so record ids
    /// sort the same in both.
    private static let createStatements = """
        CREATE TABLE vault_header (
            singleton bigint PRIMARY KEY CHECK (singleton = 1),
            format_version bigint NOT NULL,
            vault_id bytea NOT NULL CHECK (length(vault_id) = 16),
            epoch bigint NOT NULL DEFAULT 0,
            changes bigint NOT NULL DEFAULT 0
        );
        CREATE TABLE key_slots (
            slot_id bytea PRIMARY KEY CHECK (length(slot_id) = 16),
            kind bigint NOT NULL,
            scoped bigint NOT NULL,
            salt bytea NOT NULL,
            ops_limit bigint NOT NULL,
            mem_limit bigint NOT NULL,
            wrapped bytea NOT NULL,
            public_key bytea,
            sealed_grant bytea,
            epoch bigint
        );
        CREATE TABLE records (
            record_id bytea PRIMARY KEY CHECK (length(record_id) = 16),
            kind bigint NOT NULL,
            lookup bytea UNIQUE,
            domain bytea NOT NULL,
            policy bigint NOT NULL,
            version bigint NOT NULL,
            sealed bytea NOT NULL,
            scope bytea,
            terms bytea
        );
        CREATE INDEX records_by_kind ON records (kind, record_id, version);
        CREATE TABLE integrity (
            singleton bigint PRIMARY KEY CHECK (singleton = 1),
            sealed bytea NOT NULL
        );
        CREATE TABLE group_integrity (
            scope bytea PRIMARY KEY CHECK (length(scope) = 16),
            sealed bytea NOT NULL
        );
        CREATE TABLE record_index (
            term bytea NOT NULL CHECK (length(term) = \(IndexTerm.hashByteCount)),
            record_id bytea NOT NULL,
            PRIMARY KEY (term, record_id)
        );
        CREATE TABLE record_index_state (
            singleton bigint PRIMARY KEY CHECK (singleton = 1),
            filed_through bytea NOT NULL
        );
        INSERT INTO record_index_state (singleton, filed_through) VALUES (1, '\\x');
        """

    /// The schema the connection's tables go in: the first existing one on its `search_path`.
    ///
    /// - Throws: ``VaultError/invalidArgument(_:)`` when no schema on the path exists.
    static func currentSchema(_ db: PostgresConnection) throws -> String {
        guard let row = try db.queryFirst("SELECT current_schema()::text"), !row.isNull(0) else {
            throw VaultError.invalidArgument(
                "no schema on the connection's search_path exists; create the vault's schema first")
        }
        return try row.text(0)
    }

    /// Whether the current schema holds a vault's tables.
    static func hasVault(_ db: PostgresConnection) throws -> Bool {
        try db.queryFirst("SELECT to_regclass('vault_header') IS NOT NULL")?.bool(0) ?? false
    }

    /// The SQL expression naming the current schema's notification channel, which every write
    /// transaction notifies at commit (``PostgresChangeFeed`` listens to it). A digest of the schema
    /// name keeps it within the 63 bytes a channel name may have, whatever the schema is called.
    static let changeChannel = "'tokenvault_' || md5(current_schema())"

    /// Serialises creating and migrating the current schema's tables among every process: a
    /// transaction-scoped advisory lock keyed by the schema's name.
    static func lockSchema(_ db: PostgresConnection) throws {
        try db.run(lockStatement)
    }

    /// The statement ``lockSchema(_:)`` runs.
    static let lockStatement = "SELECT pg_advisory_xact_lock(hashtext('tokenvault:' || current_schema()))"

    /// Runs every step the schema has not had, in this transaction; call after ``lockSchema(_:)``.
    ///
    /// - Throws: ``VaultError/unsupportedFormat(_:)`` when the tables are of a later version than this
    ///   library knows.
    static func migrate(_ db: PostgresConnection) throws {
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS vault_schema_version (
                singleton bigint PRIMARY KEY CHECK (singleton = 1),
                version bigint NOT NULL
            )
            """)
        let current = try db.queryFirst("SELECT version FROM vault_schema_version WHERE singleton = 1")?.int8(0) ?? 0
        guard current <= migrations.last!.version else {
            throw VaultError.unsupportedFormat(
                "the vault's tables are at schema version \(current), newer than this library knows; "
                    + "upgrade TokenVault")
        }
        for step in migrations where step.version > current {
            try db.execute(step.statements)
            try db.run(
                "INSERT INTO vault_schema_version (singleton, version) VALUES (1, $1) "
                    + "ON CONFLICT (singleton) DO UPDATE SET version = excluded.version",
                [.int8(step.version)])
        }
    }
}
