#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a database file must be before anything reads it: checked on the path first, then on the
/// descriptor SQLite itself opened, right after it opened the path and before any statement, so
/// the file checked is the file read, whatever is put at the path meanwhile.
///
/// Never on a descriptor of our own. Closing any descriptor of a file drops every POSIX lock the
/// process holds on it, SQLite's included; a process whose connection lost its shared lock is
/// taken by the others for gone, and the last of them to close checkpoints and removes the
/// write-ahead log under it, losing writes or damaging the file.
package enum SQLiteFileCheck {
    /// Why the file was refused.
    package enum Failure: Error, Equatable {
        /// Not a regular file (a folder, a FIFO, a device).
        case notARegularFile
        /// The file's mode grants its group or others some access.
        case insecurePermissions
    }

    /// The check for a vault file: a regular file, and, with `refusingGroupOrOtherAccess`, one whose
    /// mode grants its group and others nothing.
    package static func vaultFile(refusingGroupOrOtherAccess: Bool) -> @Sendable (stat) throws(Failure) -> Void {
        { info throws(Failure) in try check(info, refusingGroupOrOtherAccess: refusingGroupOrOtherAccess) }
    }

    /// The same check on the path, before SQLite opens it (following symbolic links, as SQLite
    /// does), so that the common case fails before SQLite reads a byte: SQLite reads from the file
    /// while it opens it, and fails on a FIFO with an I/O error instead of naming it. A file put at
    /// the path after this check is caught by the check of SQLite's own descriptor.
    ///
    /// - Throws: ``Failure``; nothing when the path cannot be read (SQLite then says why).
    package static func checkPath(_ path: String, refusingGroupOrOtherAccess: Bool) throws(Failure) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        try check(info, refusingGroupOrOtherAccess: refusingGroupOrOtherAccess)
    }

    private static func check(_ info: stat, refusingGroupOrOtherAccess: Bool) throws(Failure) {
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notARegularFile }
        if refusingGroupOrOtherAccess, info.st_mode & 0o077 != 0 { throw .insecurePermissions }
    }
}
