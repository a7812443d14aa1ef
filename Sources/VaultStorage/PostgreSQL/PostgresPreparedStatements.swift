internal import CPostgres

/// The statements a session has prepared, by text and parameter types. The vault runs the same
/// few statements over and over; prepared once per session, each later run skips the server's
/// parse and analysis, which cost about as much as running a statement that reads or writes one
/// row.
///
/// A statement is named only once the server answered that it is prepared. A prepared statement
/// outlives the transaction it was prepared in, even one rolled back; `DISCARD ALL` drops them,
/// so ``PostgresConnection/discardSessionState()`` empties this too.
struct PostgresPreparedStatements {
    /// What a statement is kept under: the server fixes the parameter types when it prepares.
    struct Key: Hashable {
        let sql: String
        let types: [Oid]
    }

    /// At most this many are prepared per session; others run unnamed, parsed each time, so a
    /// caller that builds statement text on the fly cannot grow the server's memory without end.
    static let capacity = 128

    private var names: [Key: String] = [:]
    private var issued = 0

    /// The name `key` is prepared under, if it is.
    func name(for key: Key) -> String? {
        names[key]
    }

    /// Whether another statement may be prepared.
    var hasRoom: Bool { names.count < Self.capacity }

    /// A name not used in this session before.
    mutating func nextName() -> String {
        issued += 1
        return "tokenvault_\(issued)"
    }

    /// Records that the server prepared `key` as `name`.
    mutating func add(_ key: Key, as name: String) {
        names[key] = name
    }

    /// Forgets every statement, as `DISCARD ALL` drops them on the server.
    mutating func removeAll() {
        names.removeAll()
    }
}

extension PostgresConnection {
    /// The name under which `sql`, with parameters of `parameters`' types, is prepared in this
    /// session, preparing it first when it is not (a round trip, once per session).
    ///
    /// - Returns: `nil` when the session already holds ``PostgresPreparedStatements/capacity``
    ///   statements: the statement then runs unnamed.
    /// - Throws: ``PostgresError`` when the server refuses to prepare it (the error running it
    ///   would have given).
    func preparedName(for sql: String, _ parameters: borrowing PostgresParameters) throws -> String? {
        let key = PostgresPreparedStatements.Key(sql: sql, types: parameters.typeSignature)
        if let name = preparedStatements.name(for: key) { return name }
        guard preparedStatements.hasRoom else { return nil }
        let handle = try openHandle()
        let name = preparedStatements.nextName()
        let result = key.types.withUnsafeBufferPointer { types in
            PQprepare(handle, name, sql, Int32(types.count), types.baseAddress)
        }
        defer { PQclear(result) }
        try check(result)
        preparedStatements.add(key, as: name)
        return name
    }

    /// Resets the session as a new one (`DISCARD ALL`): settings, `LISTEN`s and prepared
    /// statements go.
    ///
    /// - Throws: ``PostgresError``.
    package func discardSessionState() throws {
        preparedStatements.removeAll()
        try execute("DISCARD ALL")
    }
}
