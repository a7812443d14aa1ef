internal import CSQLite

/// A prepared statement, finalised when released. Lives on its connection's executor.
package final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection

    init(connection: SQLiteConnection, handle: OpaquePointer) {
        self.connection = connection
        self.handle = handle
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Resets the statement and binds `values` to parameters 1...n.
    func bind(_ values: [SQLiteValue]) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .integer(let number):
                status = sqlite3_bind_int64(handle, index, number)
            case .blob(let bytes):
                status = bytes.withUnsafeBytes { raw in
                    sqlite3_bind_blob64(
                        handle, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                        UInt64(raw.count), tokenvault_sqlite_transient())
                }
            case .text(let string):
                status = sqlite3_bind_text64(
                    handle, index, string, UInt64(string.utf8.count), tokenvault_sqlite_transient(),
                    UInt8(SQLITE_UTF8))
            case .null:
                status = sqlite3_bind_null(handle, index)
            }
            try connection.check(status)
        }
    }

    /// Steps once: `true` when a row is available, `false` when done.
    func step() throws -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.error(status)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Resets after use so the statement holds no read lock while cached.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func row() -> SQLiteRow { SQLiteRow(handle: handle) }
}

/// The current row of a statement, valid only inside the row closure that receives it.
package struct SQLiteRow {
    fileprivate let handle: OpaquePointer

    /// Column `index` as an integer (0 for NULL).
    package func integer(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// Column `index` as bytes (empty for NULL).
    package func blob(_ index: Int32) -> [UInt8] {
        withBlob(index) { [UInt8]($0) }
    }

    /// Calls `body` with column `index`'s bytes where SQLite keeps them (empty for NULL), without a
    /// copy on the heap. The bytes are valid only inside `body`.
    package func withBlob<Result>(
        _ index: Int32, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        // The pointer first, then its length, as SQLite's documentation orders the two calls.
        let base = sqlite3_column_blob(handle, index)
        let count = Int(sqlite3_column_bytes(handle, index))
        guard let base, count > 0 else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Column `index` as text (empty for NULL).
    package func text(_ index: Int32) -> String {
        guard let base = sqlite3_column_text(handle, index) else { return "" }
        return String(cString: base)
    }

    /// Whether column `index` is NULL.
    package func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// The number of columns in the row.
    package var columnCount: Int32 { sqlite3_column_count(handle) }

    /// Column `index` as whatever type it holds (reals, which vaults never store, as text).
    package func value(_ index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_NULL: .null
        case SQLITE_INTEGER: .integer(integer(index))
        case SQLITE_BLOB: .blob(blob(index))
        default: .text(text(index))
        }
    }
}
