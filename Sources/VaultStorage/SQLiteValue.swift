/// A value bound to a statement parameter.
package enum SQLiteValue: Sendable, Equatable {
    case integer(Int64)
    case blob([UInt8])
    case text(String)
    case null
}
