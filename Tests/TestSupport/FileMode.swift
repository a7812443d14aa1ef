import Foundation

/// The permission bits of a file, for the 0600 / 0700 checks.
///
/// - Parameter url: The file or folder.
/// - Returns: Its mode, e.g. `0o600`.
public func fileMode(_ url: URL) throws -> Int {
    try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int ?? -1
}
