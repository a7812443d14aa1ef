/// The isolation level of a transaction (`BEGIN ISOLATION LEVEL ...`).
package enum PostgresIsolationLevel: String, Sendable, CaseIterable {
    /// Each statement sees what was committed before it began (PostgreSQL's default).
    case readCommitted = "READ COMMITTED"
    /// The whole transaction sees one snapshot; a write that would overwrite a concurrent commit
    /// fails with a serialization failure (`40001`).
    case repeatableRead = "REPEATABLE READ"
    /// As if transactions ran one after another; a conflict fails with a serialization failure
    /// (`40001`), and the caller retries the whole transaction.
    case serializable = "SERIALIZABLE"
}
