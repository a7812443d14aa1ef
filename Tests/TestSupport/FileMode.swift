import Foundation

/// The permission bits of a file, for the 0600 / 0700 checks.
///
/// - Parameter url: The file or folder.
/// - Returns: Its mode, e.g. `0o600`.
public func fileMode(_ url: URL) throws -> Int {
    try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int ?? -1
}

/// Sets the permission bits of a file, as `chmod` does.
///
/// - Parameters:
///   - mode: The mode, e.g. `0o600`.
///   - url: The file or folder.
public func setFileMode(_ mode: Int, _ url: URL) throws {
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
}

/// Writes a file readable by its owner only (0600), as a passphrase or secret file must be.
///
/// - Parameters:
///   - contents: The text to write.
///   - url: The file; it must not exist yet.
public func writePrivateFile(_ contents: String, to url: URL) throws {
    guard
        FileManager.default.createFile(
            atPath: url.path, contents: Data(contents.utf8), attributes: [.posixPermissions: 0o600])
    else { throw CocoaError(.fileWriteUnknown) }
}
