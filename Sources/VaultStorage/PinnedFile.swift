import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which file a descriptor reaches: its device and inode.
package struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}

/// A file checked through its own descriptor and held open, so that a later open of the same path
/// (by SQLite, which opens by name) can be proved to reach this very file.
///
/// Checking the path and then opening it again leaves a window in which another file can be put
/// there. Holding the descriptor also keeps the inode alive, so its number cannot be reused by a
/// file created in that window.
package final class PinnedFile: Sendable {
    /// Why pinning or opening failed.
    package enum Failure: Error, Equatable {
        case missing
        case unreadable(String)
        /// Not a regular file (a folder, a FIFO, a device).
        case notARegularFile
        /// The file's mode grants its group or others some access.
        case insecurePermissions
        /// SQLite opened another file than the one checked: the path was swapped meanwhile.
        case replaced
    }

    /// The path as given.
    package let path: String
    /// The file the descriptor reaches.
    package let identity: FileIdentity
    private let descriptor: Int32

    /// Opens `path` (following symbolic links, as SQLite does, and without blocking on a FIFO) and
    /// checks the file through the descriptor.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - refusingGroupOrOtherAccess: Refuse a file whose mode grants its group or others any
    ///     permission.
    /// - Throws: ``Failure``.
    package init(path: String, refusingGroupOrOtherAccess: Bool) throws(Failure) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else {
            if errno == ENOENT { throw .missing }
            throw .unreadable(String(cString: strerror(errno)))
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .unreadable(reason)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw .notARegularFile
        }
        if refusingGroupOrOtherAccess, info.st_mode & 0o077 != 0 {
            close(descriptor)
            throw .insecurePermissions
        }
        self.path = path
        self.descriptor = descriptor
        identity = FileIdentity(info)
    }

    deinit {
        close(descriptor)
    }

    /// Opens the SQLite database at ``path`` and proves it is the file checked here.
    ///
    /// - Parameter busyTimeout: As for ``SQLiteDatabase/init(path:mode:busyTimeout:)``.
    /// - Returns: The database.
    /// - Throws: ``Failure/replaced`` when SQLite reached another file; ``StorageError``.
    package func openDatabase(busyTimeout: Duration) throws -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: path, mode: .readWrite, busyTimeout: busyTimeout)
        guard database.fileIdentity == identity else { throw Failure.replaced }
        return database
    }

    /// The identity of the file an open descriptor reaches.
    static func identity(of descriptor: Int32) -> FileIdentity? {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? FileIdentity(info) : nil
    }
}
