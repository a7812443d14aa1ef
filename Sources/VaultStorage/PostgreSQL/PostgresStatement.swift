/// One statement and its parameters, for ``PostgresConnection/pipeline(_:)``.
package struct PostgresStatement: Sendable {
    /// One statement, parameters written `$1`, `$2`, ...
    package let sql: String
    /// The parameters, in order.
    package let values: [PostgresValue]
    /// Whether the pipeline decodes and returns the statement's rows; others' rows are dropped
    /// undecoded (a `void` column, say, which ``PostgresValue`` does not hold).
    package let returnsRows: Bool

    /// A statement with its parameters.
    package init(_ sql: String, _ values: [PostgresValue] = [], returnsRows: Bool = false) {
        self.sql = sql
        self.values = values
        self.returnsRows = returnsRows
    }
}
