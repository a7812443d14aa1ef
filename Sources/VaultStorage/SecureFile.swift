import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// File-system steps that must get permissions right the first time.
package enum SecureFile {
    /// Creates `directory` and any missing parents with mode 0700. Existing folders are left as
    /// they are.
    package static func createDirectory(_ directory: URL) throws {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
    }

    /// Creates an empty file with mode 0600, failing if anything exists at `path`.
    /// - Returns: `false` when the path already exists.
    package static func createExclusive(_ path: String) throws -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST { return false }
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        defer { close(descriptor) }
        // The umask may have removed bits; it never adds any.
        guard fchmod(descriptor, 0o600) == 0 else { throw lastError() }
        return true
    }

    /// Links `source` at `destination` without replacing anything there: an atomic no-clobber
    /// publish of a finished file.
    /// - Returns: `false` when `destination` already exists.
    package static func publish(_ source: String, at destination: String) throws -> Bool {
        guard link(source, destination) == 0 else {
            if errno == EEXIST { return false }
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        return true
    }

    /// Creates a new folder in `directory` that only this user can enter (0700), named `prefix`
    /// followed by random characters (`mkdtemp`): files made inside it are never reachable by
    /// others, whatever mode they are created with.
    ///
    /// - Returns: The folder's path.
    /// - Throws: `POSIXError` when it cannot be created or made 0700.
    package static func createPrivateDirectory(in directory: URL, prefix: String) throws -> String {
        var template = Array(directory.appendingPathComponent(prefix + "XXXXXX").path.utf8CString)
        guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw lastError()
        }
        let path = String(cString: created)
        // mkdtemp asks for 0700, but a umask such as 0200 would leave the owner unable to write.
        guard chmod(path, 0o700) == 0 else {
            let error = lastError()
            rmdir(path)
            throw error
        }
        return path
    }

    /// Sets the mode of the file at `path` to 0600: owner read and write, nothing for anyone else.
    ///
    /// - Throws: `POSIXError` when `chmod` fails.
    package static func restrictToOwner(_ path: String) throws {
        guard chmod(path, 0o600) == 0 else { throw lastError() }
    }

    /// Removes a folder this process made and everything in it; a cleanup that cannot fail the
    /// operation it follows.
    package static func removeDirectory(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    private static func lastError() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }

    /// Whether a mode grants its group or others any permission (`mode & 0o077`). ssh refuses such
    /// a private key, and the vault does the same for its files.
    private static func grantsGroupOrOtherAccess(_ mode: mode_t) -> Bool {
        mode & 0o077 != 0
    }

    /// Removes a file if it exists.
    package static func remove(_ path: String) {
        unlink(path)
    }

    /// Writes `bytes` to a new 0600 file at `path` (fails if it exists) and syncs it. Takes a raw
    /// view so a secret in secure memory is written without an ordinary copy.
    package static func writeNew(_ bytes: UnsafeRawBufferPointer, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        fchmod(descriptor, 0o600)
        let written = write(descriptor, bytes.baseAddress, bytes.count)
        guard written == bytes.count, fsync(descriptor) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    /// Why ``readBounded(at:minimumByteCount:maximumByteCount:refusingGroupOrOtherAccess:into:)`` failed.
    package enum ReadError: Error {
        case missing
        case tooShort
        case tooLong
        case unreadable(String)
        /// The file's mode grants its group or others some access.
        case insecurePermissions
    }

    /// Reads a whole small file straight into a caller-made buffer (secure memory for secrets),
    /// so the contents never pass through an ordinary array.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - minimumByteCount: Shorter files are refused.
    ///   - maximumByteCount: Longer files are refused before anything is read.
    ///   - refusingGroupOrOtherAccess: Refuse, before reading, a file whose mode grants its group or
    ///     others any permission (checked on the open descriptor, so a swap after the check is moot).
    ///   - makeBuffer: Given the size and a filler, makes the buffer and runs the filler on it.
    package static func readBounded<Buffer>(
        at path: String, minimumByteCount: Int, maximumByteCount: Int, refusingGroupOrOtherAccess: Bool = false,
        into makeBuffer: (Int, (UnsafeMutableRawBufferPointer) throws -> Void) throws -> Buffer
    ) throws -> Buffer {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { throw ReadError.missing }
            throw ReadError.unreadable(String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw ReadError.unreadable(String(cString: strerror(errno)))
        }
        if refusingGroupOrOtherAccess, grantsGroupOrOtherAccess(info.st_mode) {
            throw ReadError.insecurePermissions
        }
        let size = Int(info.st_size)
        guard size >= minimumByteCount else { throw ReadError.tooShort }
        guard size <= maximumByteCount else { throw ReadError.tooLong }
        return try makeBuffer(size) { buffer in
            var offset = 0
            while offset < size {
                let got = read(descriptor, buffer.baseAddress! + offset, size - offset)
                if got < 0, errno == EINTR { continue }
                guard got > 0 else {
                    throw ReadError.unreadable(
                        got == 0 ? "file shrank while reading" : String(cString: strerror(errno)))
                }
                offset += got
            }
        }
    }
}
