import VaultStorage

/// The statements of a write run ahead of its transaction (``PostgresVaultBackend``): collected
/// in order, to be sent in one pipeline. Each is taken to change one row, which holds as long as
/// the pipeline's last statement finds the vault as the ``KnownRecordState`` it ran on knew it. A
/// read that state could not answer reaches ``query(_:_:)`` and ends the attempt.
final class DeferredStatements: PostgresStatementRunner {
    /// A read the write run ahead cannot answer: the write runs again in a transaction.
    struct CannotRead: Error {}

    /// The statements so far.
    private(set) var statements: [PostgresStatement] = []

    func run(_ sql: String, _ values: [PostgresValue]) throws -> Int {
        statements.append(PostgresStatement(sql, values))
        return 1
    }

    func query(_ sql: String, _ values: [PostgresValue]) throws -> [PostgresRow] {
        throw CannotRead()
    }
}
