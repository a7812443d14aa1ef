/// A value bound to a statement parameter or read from a column.
///
/// Integers and byte strings travel in PostgreSQL's binary format (`int8`, `bytea`), so no value is
/// ever turned into SQL text; a ``text(_:)`` parameter is sent as text of an unspecified type, so
/// the server reads it as whatever type the statement expects (`text`, `timestamptz`, ...).
package enum PostgresValue: Sendable, Equatable {
    /// An `int8` (`bigint`); `int2`, `int4` and `oid` columns are read as this too.
    case int8(Int64)
    /// A `bytea`.
    case bytea([UInt8])
    /// A `text`, `varchar`, `name` or `json` value; UTF-8, without NUL characters.
    case text(String)
    /// A `boolean`.
    case bool(Bool)
    /// SQL `NULL`.
    case null
}
