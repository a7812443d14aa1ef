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
