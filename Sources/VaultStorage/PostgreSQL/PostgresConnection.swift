internal import CPostgres
import Foundation

/// One connection to a PostgreSQL server, over libpq. Not `Sendable`: one thread at a time uses
/// it, as with ``SQLiteConnection``; a ``PostgresPool`` hands connections from one user to the next.
///
/// Statements go through `PQexecParams` with every value a parameter, never spliced into SQL
/// text, and results come back in binary format, decoded by column type into ``PostgresValue``.
package final class PostgresConnection {
    private let handle: OpaquePointer
    /// Masks the password in libpq's messages.
    private let connectionString: PostgresConnectionString
    private var isClosed = false
    /// The statements this session has prepared (``preparedName(for:_:)``).
    var preparedStatements = PostgresPreparedStatements()

    /// Connects. Wraps `PQconnectdbParams`, with `connect_timeout` set from `connectTimeout`.
    ///
    /// - Parameters:
    ///   - connectionString: Where and as whom to connect.
    ///   - connectTimeout: The longest to wait for each host of the string to answer, rounded up to
    ///     whole seconds; libpq waits at least 2 s.
    /// - Throws: ``PostgresError/Kind/cannotConnect`` (SQLSTATE `08001`) with libpq's reason, its
    ///   passwords masked.
    package init(_ connectionString: PostgresConnectionString, connectTimeout: Duration = .seconds(10)) throws {
        let seconds = max(1, connectTimeout.components.seconds + (connectTimeout.components.attoseconds > 0 ? 1 : 0))
        // expand_dbname = 1: the first `dbname` value is the whole connection string; the later
        // `connect_timeout` overrides any the string sets.
        let keywords: [UnsafeMutablePointer<CChar>?] = [strdup("dbname"), strdup("connect_timeout"), nil]
        let values: [UnsafeMutablePointer<CChar>?] = [strdup(connectionString.rawValue), strdup("\(seconds)"), nil]
        defer { for pointer in keywords + values { free(pointer) } }
        let constantKeywords = keywords.map { UnsafePointer($0) }
        let constantValues = values.map { UnsafePointer($0) }
        let connection = PQconnectdbParams(constantKeywords, constantValues, 1)
        guard let connection else {
            throw PostgresError(kind: .cannotConnect, sqlState: "08001", message: "cannot allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let reason = connectionString.scrubbed(Self.trimmed(PQerrorMessage(connection)))
            PQfinish(connection)
            throw PostgresError(kind: .cannotConnect, sqlState: "08001", message: reason)
        }
        // The default processor prints notices (NOTICE, WARNING) to standard error.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        handle = connection
        self.connectionString = connectionString
    }

    deinit {
        close()
    }

    /// Closes the connection; every later call throws ``PostgresError/Kind/closed``. Wraps `PQfinish`.
    package func close() {
        guard !isClosed else { return }
        PQfinish(handle)
        isClosed = true
    }

    /// The server process serving this connection (`pg_backend_pid()`), or 0 once closed.
    package var serverProcessID: Int32 { isClosed ? 0 : PQbackendPID(handle) }

    /// Whether a transaction is open (or failed and not yet rolled back) on this connection.
    package var isInTransaction: Bool {
        guard !isClosed else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Whether libpq has not found the connection broken, without looking at the socket: what a
    /// borrower that just used the connection needs to know, as a failed read or write marks it.
    package var isOpen: Bool {
        !isClosed && PQstatus(handle) == CONNECTION_OK
    }

    /// Whether the connection still works, checked without a round trip: libpq's status, then
    /// whatever the server sent while the connection was idle. A server that shut down has sent
    /// its farewell and closed the socket; the first read takes the farewell, a later one sees
    /// the end of the stream, so this reads for as long as the socket has something to read.
    package var isUsable: Bool {
        for _ in 0..<16 where isOpen {
            let descriptor = PQsocket(handle)
            guard descriptor >= 0, let readable = try? PostgresSocket.waitReadable(descriptor, timeout: .zero) else {
                return false
            }
            guard readable else { return true }
            guard PQconsumeInput(handle) == 1 else { return false }
        }
        return isOpen
    }

    /// Runs one or more statements without parameters (`CREATE TABLE ...; CREATE INDEX ...`).
    /// Wraps `PQexec`.
    ///
    /// - Parameter sql: The statements.
    /// - Throws: ``PostgresError`` for the first statement that fails.
    package func execute(_ sql: String) throws {
        guard !isClosed else { throw PostgresError.closed }
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result)
    }

    /// Runs one statement with parameters, discarding any rows.
    ///
    /// - Parameters:
    ///   - sql: One statement, parameters written `$1`, `$2`, ...
    ///   - values: The parameters, in order.
    /// - Returns: The rows it inserted, updated or deleted (0 for other statements).
    /// - Throws: ``PostgresError``.
    @discardableResult
    package func run(_ sql: String, _ values: [PostgresValue] = []) throws -> Int {
        try withResult(sql, values) { result in Int(String(cString: PQcmdTuples(result))) ?? 0 }
    }

    /// Runs a query and decodes every row.
    ///
    /// - Parameters:
    ///   - sql: One statement, parameters written `$1`, `$2`, ...
    ///   - values: The parameters, in order.
    /// - Returns: The rows.
    /// - Throws: ``PostgresError``; ``PostgresError/Kind/invalidValue`` for a column of a type
    ///   ``PostgresValue`` does not hold (cast it to `text` in the statement).
    package func query(_ sql: String, _ values: [PostgresValue] = []) throws -> [PostgresRow] {
        try withResult(sql, values) { result in try Self.rows(of: result) }
    }

    /// Runs a query and decodes its first row, if any.
    ///
    /// - Parameters:
    ///   - sql: One statement, parameters written `$1`, `$2`, ...
    ///   - values: The parameters, in order.
    /// - Returns: The first row, or `nil` when there is none.
    /// - Throws: ``PostgresError``.
    package func queryFirst(_ sql: String, _ values: [PostgresValue] = []) throws -> PostgresRow? {
        try query(sql, values).first
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    ///
    /// - Parameters:
    ///   - isolation: The isolation level.
    ///   - body: The work; it gets this connection.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws (after the rollback); ``PostgresError`` when `BEGIN` or
    ///   `COMMIT` fails (``PostgresError/isSerializationFailure`` at commit under
    ///   ``PostgresIsolationLevel/serializable``); SQLSTATE `25P02` when `body` caught a failed
    ///   statement and returned anyway, which makes PostgreSQL roll back on `COMMIT`;
    ///   ``PostgresError/Kind/misuse`` when a transaction is already open.
    @discardableResult
    package func transaction<Result>(
        isolation: PostgresIsolationLevel = .readCommitted, _ body: (PostgresConnection) throws -> Result
    ) throws -> Result {
        guard !isInTransaction else {
            throw PostgresError(kind: .misuse, message: "a transaction is already open on this connection")
        }
        try execute("BEGIN ISOLATION LEVEL \(isolation.rawValue)")
        let value: Result
        do {
            value = try body(self)
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
        let committed = try withResult("COMMIT", []) { String(cString: PQcmdStatus($0)) }
        guard committed == "COMMIT" else {
            throw PostgresError(
                kind: .server, sqlState: "25P02",
                message: "a statement in the transaction failed, so COMMIT rolled it back")
        }
        return value
    }

    /// Sets how long any later statement may run before the server cancels it with SQLSTATE
    /// `57014` (``PostgresError/isQueryCancelled``), through `set_config('statement_timeout', ...)`.
    ///
    /// - Parameter timeout: The limit, rounded up to whole milliseconds and capped at PostgreSQL's
    ///   most (`INT_MAX` ms, about 24 days); `nil` or zero for none.
    /// - Throws: ``PostgresError``.
    package func setStatementTimeout(_ timeout: Duration?) throws {
        let milliseconds = min(timeout.map { PostgresSocket.milliseconds($0) } ?? 0, Int64(Int32.max))
        try run("SELECT set_config('statement_timeout', $1, false)", [.text("\(milliseconds)")])
    }

    /// The libpq connection, for the extensions in other files.
    ///
    /// - Throws: ``PostgresError/Kind/closed`` once closed.
    func openHandle() throws -> OpaquePointer {
        guard !isClosed else { throw PostgresError.closed }
        return handle
    }

    /// Runs `sql` with `values` and hands the successful result to `body`.
    func withResult<Value>(
        _ sql: String, _ values: [PostgresValue], _ body: (OpaquePointer) throws -> Value
    ) throws -> Value {
        guard !isClosed else { throw PostgresError.closed }
        let parameters = try PostgresParameters(values)
        let name = try preparedName(for: sql, parameters)
        let result = parameters.withArguments { count, types, values, lengths, formats in
            if let name { return PQexecPrepared(handle, name, count, values, lengths, formats, 1) }
            return PQexecParams(handle, sql, count, types, values, lengths, formats, 1)
        }
        defer { PQclear(result) }
        try check(result)
        guard let result else { throw lostOrClientError() }
        return try body(result)
    }

    /// Throws the error `result` carries, if any.
    func check(_ result: OpaquePointer?) throws {
        guard let result else { throw lostOrClientError() }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
        default: break
        }
        guard let state = PQresultErrorField(result, tokenvault_pq_diag_sqlstate()) else { throw lostOrClientError() }
        let primary = PQresultErrorField(result, tokenvault_pq_diag_message_primary()).map { String(cString: $0) } ?? ""
        throw PostgresError(
            serverState: String(cString: state), primaryMessage: connectionString.scrubbed(primary),
            connectionBroken: PQstatus(handle) == CONNECTION_BAD)
    }

    /// The error for a failure libpq reports without a server SQLSTATE: a lost connection when
    /// the connection is now broken, otherwise a client-side failure.
    func lostOrClientError() -> PostgresError {
        let message = connectionString.scrubbed(Self.trimmed(PQerrorMessage(handle)))
        return PQstatus(handle) == CONNECTION_BAD
            ? .connectionLost(message) : PostgresError(kind: .client, message: message)
    }

    static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        message.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
    }

    static func rows(of result: OpaquePointer) throws -> [PostgresRow] {
        let columnCount = PQnfields(result)
        let columns = (0..<columnCount).map { String(cString: PQfname(result, $0)) }
        let types = (0..<columnCount).map { PQftype(result, $0) }
        return try (0..<PQntuples(result)).map { row in
            let values = try (0..<columnCount).map { column -> PostgresValue in
                if PQgetisnull(result, row, column) == 1 { return .null }
                let bytes = UnsafeRawBufferPointer(
                    start: PQgetvalue(result, row, column), count: Int(PQgetlength(result, row, column)))
                return try PostgresTypeOID.decode(
                    bytes, type: types[Int(column)], column: columns[Int(column)])
            }
            return PostgresRow(columns: columns, values: values)
        }
    }
}
