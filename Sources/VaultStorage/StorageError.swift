internal import CSQLite
import Foundation

/// An error from SQLite. Carries the result code and SQLite's message, never bound values.
package struct StorageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// SQLite's extended result code.
    package let extendedCode: Int32
    /// SQLite's message (`sqlite3_errmsg`); names tables or constraints, never row contents.
    package let message: String

    package init(extendedCode: Int32, message: String) {
        self.extendedCode = extendedCode
        self.message = message
    }

    /// The primary result code (the low byte of the extended one).
    package var code: Int32 { extendedCode & 0xff }

    /// Another connection held a lock for longer than the busy timeout.
    package var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
    /// The disk (or the page-count limit) is full.
    package var isFull: Bool { code == SQLITE_FULL }
    /// The file is damaged.
    package var isCorrupt: Bool { code == SQLITE_CORRUPT }
    /// The file is not an SQLite database at all.
    package var isNotADatabase: Bool { code == SQLITE_NOTADB }
    /// The file could not be opened.
    package var isCannotOpen: Bool { code == SQLITE_CANTOPEN }
    /// A UNIQUE or PRIMARY KEY constraint failed.
    package var isConstraint: Bool {
        // SQLITE_CONSTRAINT_UNIQUE and SQLITE_CONSTRAINT_PRIMARYKEY, macros Swift does not import.
        extendedCode == SQLITE_CONSTRAINT | 8 << 8 || extendedCode == SQLITE_CONSTRAINT | 6 << 8
    }

    /// The database was closed by this process (``SQLiteDatabase/close()``).
    package static let closed = StorageError(extendedCode: SQLITE_MISUSE, message: "the vault was closed")

    package var description: String { "SQLite error \(extendedCode): \(message)" }
}
