import Foundation
import TokenVault
internal import VaultStorage

/// A file of secrets the command line writes (an export): 0600 from its first byte, and an
/// existing file replaced only when asked.
enum PrivateOutputFile {
    /// Writes `data` to `url`: first into a new 0700 folder beside it, then linked into place (which
    /// never replaces a file) or, when `replacing`, renamed over whatever is there.
    ///
    /// - Throws: ``SecretTransferError/fileExists(_:)`` when a file is there and `replacing` is
    ///   `false`; `POSIXError` when the folder cannot be written.
    static func write(_ data: Data, to url: URL, replacing: Bool) throws {
        let folder = try SecureFile.createPrivateDirectory(
            in: url.deletingLastPathComponent(), prefix: ".tokenvault-export-")
        defer { SecureFile.removeDirectory(folder) }
        let staged = folder + "/file"
        try data.withUnsafeBytes { try SecureFile.writeNew($0, to: staged) }
        if replacing {
            guard rename(staged, url.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } else {
            guard try SecureFile.publish(staged, at: url.path) else { throw SecretTransferError.fileExists(url.path) }
        }
    }
}
