import Foundation
import VaultCrypto
import VaultStorage

/// The machine-local secret that `...ThisDeviceOnly` items are bound to: 32 random bytes in a 0600
/// file outside the vault, created the first time such an item is stored.
///
/// A vault file copied to another machine (or directory) without this file cannot open those items.
/// `/etc/machine-id` is not used: it is readable by every user, so it is not a secret.
final class DeviceSecret: Sendable {
    static let byteCount = 32

    let key: SymmetricKey
    /// A non-secret id of the secret, mixed into device-bound domain ids.
    let id: [UInt8]

    private init(key: SymmetricKey) {
        self.key = key
        id = BLAKE2b.hash(Array("TokenVault device id".utf8), key: key, outputByteCount: 16)
    }

    /// `$XDG_DATA_HOME/tokenvault/device.secret`, else `~/.local/share/tokenvault/device.secret`.
    static var defaultURL: URL {
        let environment = ProcessInfo.processInfo.environment
        let dataHome =
            environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        return dataHome.appendingPathComponent("tokenvault/device.secret")
    }

    /// Reads the secret; `nil` when the file does not exist.
    ///
    /// - Throws: ``VaultError/insecurePermissions(_:)`` for a file others may access, unless
    ///   `allowsInsecurePermissions`; ``VaultError/storage(_:)`` for an unreadable or wrong-size one.
    static func load(at url: URL, allowsInsecurePermissions: Bool) throws -> DeviceSecret? {
        do {
            let bytes = try SecureFile.readBounded(
                at: url.path, minimumByteCount: byteCount, maximumByteCount: byteCount,
                refusingGroupOrOtherAccess: !allowsInsecurePermissions
            ) { count, fill in try SecureBytes(count: count, initializer: fill) }
            return DeviceSecret(key: SymmetricKey(secureBytes: bytes))
        } catch SecureFile.ReadError.missing {
            return nil
        } catch SecureFile.ReadError.insecurePermissions {
            throw VaultError.insecurePermissions(url.path)
        } catch {
            throw VaultError.storage("the device secret at \(url.path) is unreadable or not \(byteCount) bytes")
        }
    }

    /// Reads the secret, creating it (0600, in a 0700 folder) when missing. Two processes racing
    /// to create it agree: the file is created exclusively and the loser reads the winner's.
    static func loadOrCreate(at url: URL, allowsInsecurePermissions: Bool) throws -> DeviceSecret {
        if let existing = try load(at: url, allowsInsecurePermissions: allowsInsecurePermissions) { return existing }
        let secret = SecureBytes.random(count: byteCount)
        do {
            try SecureFile.createDirectory(url.deletingLastPathComponent())
            try secret.withUnsafeBytes { try SecureFile.writeNew($0, to: url.path) }
        } catch let error as POSIXError where error.code == .EEXIST {
            // Another process created it first.
        } catch {
            throw VaultError.storage("cannot create the device secret at \(url.path)")
        }
        guard let created = try load(at: url, allowsInsecurePermissions: allowsInsecurePermissions) else {
            throw VaultError.storage("the device secret at \(url.path) vanished after creation")
        }
        return created
    }
}
