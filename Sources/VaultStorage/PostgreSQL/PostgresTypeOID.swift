internal import CPostgres

/// The type OIDs the wrapper sends and decodes (`pg_type.oid`, fixed in every PostgreSQL release).
enum PostgresTypeOID {
    static let bool: Oid = 16
    static let bytea: Oid = 17
    static let name: Oid = 19
    static let int8: Oid = 20
    static let int2: Oid = 21
    static let int4: Oid = 23
    static let text: Oid = 25
    static let oid: Oid = 26
    static let json: Oid = 114
    static let unknown: Oid = 705
    static let bpchar: Oid = 1042
    static let varchar: Oid = 1043

    /// Decodes one binary-format column value.
    ///
    /// - Parameters:
    ///   - bytes: The value as the server sent it.
    ///   - type: The column's type OID.
    ///   - column: The column name, for the error.
    /// - Returns: The value.
    /// - Throws: ``PostgresError/Kind/invalidValue`` for a type this wrapper does not decode (the
    ///   statement can cast it to `text`), or a value of the wrong size.
    static func decode(_ bytes: UnsafeRawBufferPointer, type: Oid, column: String) throws -> PostgresValue {
        func integer(_ size: Int) throws -> Int64 {
            guard bytes.count == size else {
                throw PostgresError(kind: .invalidValue, message: "column \"\(column)\" has a malformed integer")
            }
            return bytes.reduce(Int64(0)) { ($0 << 8) | Int64($1) }
        }
        switch type {
        case int8: return .int8(try integer(8))
        // Sign-extend: the bytes were read as an unsigned big-endian number.
        case int4: return .int8(Int64(Int32(truncatingIfNeeded: try integer(4))))
        case int2: return .int8(Int64(Int16(truncatingIfNeeded: try integer(2))))
        case oid: return .int8(try integer(4))
        case bytea: return .bytea(Array(bytes))
        case bool: return .bool(bytes.first == 1)
        case text, varchar, name, bpchar, unknown, json: return .text(String(decoding: bytes, as: UTF8.self))
        default:
            throw PostgresError(
                kind: .invalidValue,
                message: "column \"\(column)\" has type OID \(type), which is not decoded; cast it to text")
        }
    }
}
