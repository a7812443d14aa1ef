internal import CPostgres

extension PostgresConnection {
    /// Sends every statement at once and waits for the answers once: one round trip, however
    /// many statements. Wraps libpq's pipeline mode (`PQenterPipelineMode`, `PQsendQueryPrepared`
    /// for each, one `PQpipelineSync`); a statement this session has not prepared yet is prepared
    /// first, in a round trip of its own (once per session).
    ///
    /// With no `BEGIN` among them, the statements run as one implicit transaction that the sync
    /// commits: all of them take effect, or, when one fails, none (the server rolls back those
    /// before it and skips those after it).
    ///
    /// - Parameter statements: The statements, run in order.
    /// - Returns: Each statement's rows: those of a statement made with `returnsRows`, none for others.
    /// - Throws: ``PostgresPipelineFailure`` naming the statement that failed (nothing committed);
    ///   ``PostgresError`` when the pipeline could not be sent or the connection was lost (it may
    ///   have committed or not), or for a row that could not be decoded (it committed);
    ///   ``PostgresError/Kind/misuse`` inside a transaction.
    package func pipeline(_ statements: [PostgresStatement]) throws -> [[PostgresRow]] {
        let handle = try openHandle()
        guard !isInTransaction else {
            throw PostgresError(kind: .misuse, message: "a pipeline runs as its own transaction, not inside one")
        }
        // Prepared first, outside the pipeline: a statement the server skipped after another's
        // failure would otherwise be taken as prepared when it is not.
        let names = try statements.map { try preparedName(for: $0.sql, PostgresParameters($0.values)) }
        guard PQenterPipelineMode(handle) == 1 else { throw lostOrClientError() }
        for (index, statement) in statements.enumerated() {
            let parameters = try PostgresParameters(statement.values)
            let sent = parameters.withArguments { count, types, values, lengths, formats in
                if let name = names[index] {
                    return PQsendQueryPrepared(handle, name, count, values, lengths, formats, 1)
                }
                return PQsendQueryParams(handle, statement.sql, count, types, values, lengths, formats, 1)
            }
            guard sent == 1 else { return try abandon(handle) }
        }
        guard PQpipelineSync(handle) == 1 else { return try abandon(handle) }

        var rows: [[PostgresRow]] = []
        var failure: PostgresPipelineFailure?
        // A row that cannot be decoded is not the server's failure: the statements still commit.
        var undecodable: PostgresError?
        for (index, statement) in statements.enumerated() {
            guard let result = PQgetResult(handle) else { return try abandon(handle) }
            defer { PQclear(result) }
            rows.append([])
            if failure == nil && PQresultStatus(result) != PGRES_PIPELINE_ABORTED {
                do {
                    try check(result)
                } catch let error as PostgresError {
                    failure = PostgresPipelineFailure(index: index, error: error)
                }
                if failure == nil && statement.returnsRows {
                    do {
                        rows[index] = try Self.rows(of: result)
                    } catch let error as PostgresError {
                        undecodable = undecodable ?? error
                    }
                }
            }
            // Each statement's results end with a null result.
            while let extra = PQgetResult(handle) { PQclear(extra) }
        }
        guard let sync = PQgetResult(handle) else { return try abandon(handle) }
        let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
        PQclear(sync)
        guard synced, PQexitPipelineMode(handle) == 1 else { return try abandon(handle) }
        if let failure { throw failure }
        if let undecodable { throw undecodable }
        return rows
    }

    /// Throws the error of a pipeline that broke off before its sync was read, and closes the
    /// connection: what is left of the pipeline on it is unknown, so nothing may use it again.
    private func abandon(_ handle: OpaquePointer) throws -> [[PostgresRow]] {
        let error = lostOrClientError()
        close()
        throw error
    }
}
