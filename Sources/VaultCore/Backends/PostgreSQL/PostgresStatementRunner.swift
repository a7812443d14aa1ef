import VaultStorage

/// Where the statements of a PostgreSQL vault's transaction go: a ``PostgresConnection`` inside
/// the transaction, or ``DeferredStatements`` for a write run ahead of it.
protocol PostgresStatementRunner {
    /// Runs one statement, discarding any rows.
    ///
    /// - Returns: The rows it inserted, updated or deleted.
    @discardableResult
    func run(_ sql: String, _ values: [PostgresValue]) throws -> Int

    /// Runs a query and returns its rows.
    func query(_ sql: String, _ values: [PostgresValue]) throws -> [PostgresRow]
}

extension PostgresStatementRunner {
    /// Runs one statement without parameters.
    @discardableResult
    func run(_ sql: String) throws -> Int {
        try run(sql, [])
    }

    /// Runs a query without parameters and returns its rows.
    func query(_ sql: String) throws -> [PostgresRow] {
        try query(sql, [])
    }

    /// The first row of a query, if any.
    func queryFirst(_ sql: String, _ values: [PostgresValue] = []) throws -> PostgresRow? {
        try query(sql, values).first
    }
}

extension PostgresConnection: PostgresStatementRunner {}
