import Foundation
import VaultCrypto
import VaultStorage

/// Key files: at least 32 random bytes kept outside the vault, as a second factor or instead of a
/// passphrase.
public enum KeyFile {
    /// The shortest key file accepted.
    public static let minimumByteCount = 32
    /// The longest key file read (larger files are refused rather than read into memory).
    public static let maximumByteCount = 1 << 20

    /// Writes a new key file of 64 random bytes with mode 0600. Never overwrites.
    ///
    /// - Parameter url: Where to write it.
    /// - Throws: ``VaultError/alreadyExists(_:)`` if the file exists, ``VaultError/storage(_:)``
    ///   when it cannot be written.
    public static func generate(at url: URL) throws {
        if FileManager.default.fileExists(atPath: url.path) {
            throw VaultError.alreadyExists(url.path)
        }
        let secret = SecureBytes.random(count: 64)
        do {
            try SecureFile.createDirectory(url.deletingLastPathComponent())
            try secret.withUnsafeBytes { try SecureFile.writeNew($0, to: url.path) }
        } catch {
            throw VaultError.storage("cannot write the key file at \(url.path): \(error)")
        }
    }

    /// Reads a key file into secure memory.
    ///
    /// - Parameters:
    ///   - url: The key file.
    ///   - allowsInsecurePermissions: Accept a file that its group or others may access.
    /// - Throws: ``VaultError/invalidKeyFile(_:)``, ``VaultError/insecurePermissions(_:)``.
    static func read(_ url: URL, allowsInsecurePermissions: Bool) throws -> SecureBytes {
        do {
            return try SecureFile.readBounded(
                at: url.path, minimumByteCount: minimumByteCount, maximumByteCount: maximumByteCount,
                refusingGroupOrOtherAccess: !allowsInsecurePermissions
            ) { count, fill in try SecureBytes(count: count, initializer: fill) }
        } catch let error as SecureFile.ReadError {
            switch error {
            case .missing: throw VaultError.invalidKeyFile("no file at \(url.path)")
            case .tooShort:
                throw VaultError.invalidKeyFile("shorter than \(minimumByteCount) bytes: \(url.path)")
            case .tooLong:
                throw VaultError.invalidKeyFile("longer than \(maximumByteCount) bytes: \(url.path)")
            case .unreadable(let reason):
                throw VaultError.invalidKeyFile("cannot read \(url.path): \(reason)")
            case .insecurePermissions: throw VaultError.insecurePermissions(url.path)
            }
        }
    }
}
