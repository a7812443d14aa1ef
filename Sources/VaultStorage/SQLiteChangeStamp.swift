/// Where a database stands in its history of commits, as one connection sees it: two stamps read
/// on the same connection are equal only if no connection, this one included, committed a change
/// in between. Lets a cache of what was read skip reading again while nothing changed.
///
/// It carries no content and no secret. Read it inside a read transaction, after a first read, so
/// that it describes the same snapshot as the rest of that transaction.
package struct SQLiteChangeStamp: Hashable, Sendable {
    /// `PRAGMA data_version`: changes when another connection (of this process or another) commits.
    let dataVersion: Int64
    /// How many write transactions this connection has committed, which `data_version` leaves out.
    package let localCommits: UInt64

    /// The stamp this one becomes once the write transaction it was read in commits, if no other
    /// connection commits in between: `data_version` does not move for the connection's own commit.
    package var afterLocalCommit: SQLiteChangeStamp {
        SQLiteChangeStamp(dataVersion: dataVersion, localCommits: localCommits &+ 1)
    }
}

extension SQLiteConnection {
    /// This connection's change stamp now; see ``SQLiteChangeStamp``.
    ///
    /// - Returns: The stamp.
    /// - Throws: ``StorageError`` when the pragma cannot run, ``StorageError/closed``.
    package func changeStamp() throws -> SQLiteChangeStamp {
        let version = try queryFirst("PRAGMA data_version") { $0.integer(0) } ?? 0
        return SQLiteChangeStamp(dataVersion: version, localCommits: committedWriteCount)
    }
}
