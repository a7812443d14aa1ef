/// One row of a query result, its values decoded by column.
package struct PostgresRow: Sendable, Equatable {
    /// The column names, in select-list order.
    package let columns: [String]
    /// The values, one per column.
    package let values: [PostgresValue]

    /// A row.
    ///
    /// - Parameters:
    ///   - columns: The column names.
    ///   - values: One value per column.
    package init(columns: [String], values: [PostgresValue]) {
        self.columns = columns
        self.values = values
    }

    /// The value of column `index` (0-based).
    package subscript(index: Int) -> PostgresValue { values[index] }

    /// The `int8` (or `int2`, `int4`, `oid`) in column `index`.
    ///
    /// - Parameter index: The 0-based column.
    /// - Returns: The integer.
    /// - Throws: ``PostgresError/Kind/invalidValue`` when the column holds another type or `NULL`.
    package func int8(_ index: Int) throws -> Int64 {
        guard case .int8(let value) = values[index] else { throw mismatch(index, "int8") }
        return value
    }

    /// The `bytea` in column `index`.
    ///
    /// - Parameter index: The 0-based column.
    /// - Returns: The bytes.
    /// - Throws: ``PostgresError/Kind/invalidValue`` when the column holds another type or `NULL`.
    package func bytea(_ index: Int) throws -> [UInt8] {
        guard case .bytea(let value) = values[index] else { throw mismatch(index, "bytea") }
        return value
    }

    /// The text in column `index`.
    ///
    /// - Parameter index: The 0-based column.
    /// - Returns: The string.
    /// - Throws: ``PostgresError/Kind/invalidValue`` when the column holds another type or `NULL`.
    package func text(_ index: Int) throws -> String {
        guard case .text(let value) = values[index] else { throw mismatch(index, "text") }
        return value
    }

    /// The `boolean` in column `index`.
    ///
    /// - Parameter index: The 0-based column.
    /// - Returns: The Boolean.
    /// - Throws: ``PostgresError/Kind/invalidValue`` when the column holds another type or `NULL`.
    package func bool(_ index: Int) throws -> Bool {
        guard case .bool(let value) = values[index] else { throw mismatch(index, "boolean") }
        return value
    }

    /// Whether column `index` is `NULL`.
    ///
    /// - Parameter index: The 0-based column.
    /// - Returns: `true` for `NULL`.
    package func isNull(_ index: Int) -> Bool { values[index] == .null }

    /// The value of the column named `name`, or `nil` when no column has that name.
    ///
    /// - Parameter name: The column name as the server reports it.
    /// - Returns: The value of the first column with that name.
    package func value(named name: String) -> PostgresValue? {
        columns.firstIndex(of: name).map { values[$0] }
    }

    private func mismatch(_ index: Int, _ expected: String) -> PostgresError {
        let found: String
        switch values[index] {
        case .int8: found = "int8"
        case .bytea: found = "bytea"
        case .text: found = "text"
        case .bool: found = "boolean"
        case .null: found = "NULL"
        }
        return PostgresError(
            kind: .invalidValue, message: "column \"\(columns[index])\" holds \(found), not \(expected)")
    }
}
