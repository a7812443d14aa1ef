import Foundation
import VaultStorage

extension Vault {
    /// Writes a consistent copy of the vault to `url` while it stays in use (SQLite's
    /// `VACUUM INTO`, one snapshot), without the `...ThisDeviceOnly` items: they are bound to this
    /// machine and would be unreadable anywhere else. The copy is 0600 and opens with the same
    /// key slots; nothing at `url` is ever replaced.
    ///
    /// - Parameter url: Where to write the copy.
    /// - Throws: ``VaultError/alreadyExists(_:)``, ``VaultError/locked``, ``VaultError/storage(_:)``.
    public func backup(to url: URL) throws {
        try Self.translatingErrors {
            let path = url.standardizedFileURL.path
            guard !FileManager.default.fileExists(atPath: path) else { throw VaultError.alreadyExists(path) }
            let keys = try unlockedKeys()
            let directory = url.standardizedFileURL.deletingLastPathComponent()
            try SecureFile.createDirectory(directory)
            let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).backup-\(UUID().uuidString)")
                .path
            defer { for suffix in ["", "-wal", "-shm"] { SecureFile.remove(temporary + suffix) } }
            guard try SecureFile.createExclusive(temporary) else { throw VaultError.alreadyExists(temporary) }
            SecureFile.remove(temporary)  // VACUUM INTO needs the name free; the folder is ours (0700)
            try database.copy(to: temporary)
            do {
                let copy = Vault(
                    database: try SQLiteDatabase(
                        path: temporary, mode: .readWrite, busyTimeout: configuration.busyTimeout),
                    vaultID: vaultID, url: nil, configuration: configuration, keys: keys)
                try copy.database.enableWriteAheadLog()
                try copy.write { transaction in
                    for kind in [RecordKind.keyValueItem, .token] {
                        for row in try transaction.rows(kind: kind) {
                            let accessibility = try Domain(policyCode: row.policyCode, accessGroup: nil).accessibility
                            if accessibility.isDeviceBound { try transaction.delete(row) }
                        }
                    }
                }
            }  // closing checkpoints the copy into one file
            chmod(temporary, 0o600)
            guard try SecureFile.publish(temporary, at: path) else { throw VaultError.alreadyExists(path) }
        }
    }
}
