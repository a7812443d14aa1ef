/// An error from PostgreSQL, from libpq, or from the PostgreSQL wrapper itself.
///
/// A separate type from ``StorageError``, which carries SQLite result codes: PostgreSQL reports a
/// five-character SQLSTATE instead, and callers branch on it (retry a serialization failure,
/// report a duplicate, reconnect after a lost connection). ``kind`` says where the error came
/// from; ``sqlState`` is the server's code, or a standard one this side fills in for a lost
/// connection (`08006`) or a failed connect (`08001`).
///
/// Never carries a secret: no bound value, no password. The server's message is kept without its
/// detail (where PostgreSQL quotes the row, as in `Key (id)=(42) already exists`), and dropped
/// whole for data exceptions (class `22`), whose message quotes the offending input. libpq's own
/// messages have every password of the connection string replaced by `***`.
package struct PostgresError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Where the error came from.
    package enum Kind: Sendable, Equatable {
        /// The server rejected a statement; ``PostgresError/sqlState`` says why.
        case server
        /// The connection broke: the server went away, shut down (`57P01`) or restarted, or the
        /// network failed (class `08`). The connection cannot be used again.
        case connectionLost
        /// No connection could be made (wrong host, port, password, database, or the timeout).
        case cannotConnect
        /// The connection string could not be parsed.
        case invalidConnectionString
        /// The connection or pool was closed by this process.
        case closed
        /// No pooled connection became free within the wait.
        case poolTimeout
        /// A parameter that cannot be sent (text with a NUL character), or a column read as a
        /// type it does not hold.
        case invalidValue
        /// A call in the wrong state, such as a transaction begun inside another.
        case misuse
        /// libpq failed on this side without a server error (out of memory).
        case client
    }

    /// Where the error came from.
    package let kind: Kind
    /// The SQLSTATE, five characters (`23505`); `nil` for errors raised on this side.
    package let sqlState: String?
    /// What went wrong, free of secrets (see the type's summary).
    package let message: String

    /// An error.
    ///
    /// - Parameters:
    ///   - kind: Where it came from.
    ///   - sqlState: The SQLSTATE, if any.
    ///   - message: A message free of secrets.
    package init(kind: Kind, sqlState: String? = nil, message: String) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
    }

    /// An error the server reported, classified by its SQLSTATE.
    ///
    /// - Parameters:
    ///   - sqlState: The server's SQLSTATE.
    ///   - primaryMessage: The server's primary message (never the detail).
    ///   - connectionBroken: Whether libpq reports the connection as broken after the error.
    init(serverState sqlState: String, primaryMessage: String, connectionBroken: Bool) {
        let lost = connectionBroken || Self.connectionLostStates(sqlState)
        self.init(
            kind: lost ? .connectionLost : .server, sqlState: sqlState,
            message: sqlState.hasPrefix("22") ? "" : primaryMessage)
    }

    /// The SQLSTATE class: its first two characters (`23` for integrity constraint violations).
    package var sqlStateClass: String? { sqlState.map { String($0.prefix(2)) } }

    /// A `UNIQUE` or primary key constraint failed (`23505`).
    package var isUniqueViolation: Bool { sqlState == "23505" }
    /// A concurrent transaction made this one impossible to serialize (`40001`): retry it whole.
    package var isSerializationFailure: Bool { sqlState == "40001" }
    /// The statement was cancelled (`57014`), as `statement_timeout` does.
    package var isQueryCancelled: Bool { sqlState == "57014" }
    /// The connection is gone (class `08`, `57P01`...`57P03`, or libpq lost the socket).
    package var isConnectionLost: Bool { kind == .connectionLost }

    /// Whether `sqlState` means the connection cannot go on: a connection exception (class `08`)
    /// or the server shutting down (`57P01` admin, `57P02` crash, `57P03` cannot connect now).
    static func connectionLostStates(_ sqlState: String) -> Bool {
        sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState)
    }

    /// A connection lost without a server error: libpq saw the socket close or fail.
    static func connectionLost(_ message: String) -> PostgresError {
        PostgresError(kind: .connectionLost, sqlState: "08006", message: message)
    }

    /// The connection or pool was closed by this process.
    static let closed = PostgresError(kind: .closed, message: "the PostgreSQL connection was closed")

    private var name: String? {
        switch sqlState {
        case "23505": "unique violation"
        case "40001": "serialization failure"
        case "40P01": "deadlock"
        case "57014": "query cancelled"
        case "57P01": "server shutting down"
        default: sqlStateClass == "08" ? "connection failure" : nil
        }
    }

    package var description: String {
        var text = "PostgreSQL error"
        if let sqlState { text += " \(sqlState)" }
        if let name { text += " (\(name))" }
        return message.isEmpty ? text : "\(text): \(message)"
    }
}
