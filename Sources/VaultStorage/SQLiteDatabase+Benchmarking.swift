internal import CSQLite

extension SQLiteDatabase {
    /// The linked SQLite library's version (`sqlite3_libversion`), for the benchmark's machine header.
    package static var libraryVersion: String {
        String(cString: sqlite3_libversion())
    }
}
