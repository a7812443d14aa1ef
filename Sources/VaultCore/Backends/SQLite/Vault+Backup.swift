import Foundation
import VaultStorage

extension Vault {
    /// Writes a consistent copy of a vault file to `url` while it stays in use (SQLite's
    /// `VACUUM INTO`, one snapshot), without the `...ThisDeviceOnly` items: they are bound to this
    /// machine and would be unreadable anywhere else. The copy is 0600 from its first byte, is
    /// written in a folder only this user can enter next to `url`, and opens with the same key
    /// slots; it appears at `url` finished, and nothing at `url` is ever replaced.
    ///
    /// - Parameter url: Where to write the copy.
    /// - Throws: ``VaultError/alreadyExists(_:)``, ``VaultError/locked``, ``VaultError/storage(_:)``
    ///   (including a failed `chmod` or link), ``VaultError/invalidArgument(_:)`` for a vault that is
    ///   not in a SQLite file (a server database has its own backups).
    public func backup(to url: URL) throws {
        try backup(to: url, beforePublishing: { _ in })
    }

    /// ``backup(to:)``, calling `inspect` with the private folder that holds the finished copy just
    /// before the copy is published: for tests that check no file was ever open to other users.
    package func backup(to url: URL, beforePublishing inspect: (_ folder: URL) throws -> Void) throws {
        try Self.translatingErrors {
            let path = url.standardizedFileURL.path
            guard !FileManager.default.fileExists(atPath: path) else { throw VaultError.alreadyExists(path) }
            let keys = try unlockedKeys()
            let database = try fileDatabase(for: "a backup to a file")
            let directory = url.standardizedFileURL.deletingLastPathComponent()
            try SecureFile.createDirectory(directory)
            // SQLite creates the copy's journal and log files itself, with the copy's mode; inside
            // a 0700 folder nobody else can reach any of them, and the copy is made 0600 before
            // `VACUUM INTO` fills it (SQLite accepts an empty file there).
            let folder = try SecureFile.createPrivateDirectory(
                in: directory, prefix: ".\(url.lastPathComponent).backup-")
            defer { SecureFile.removeDirectory(folder) }
            let temporary = URL(fileURLWithPath: folder).appendingPathComponent("copy.db").path
            guard try SecureFile.createExclusive(temporary) else { throw VaultError.alreadyExists(temporary) }
            try database.copy(to: temporary)
            do {
                let copied = try SQLiteDatabase(
                    path: temporary, mode: .readWrite, busyTimeout: configuration.busyTimeout)
                try copied.enableWriteAheadLog()
                let copy = Vault(
                    backend: SQLiteVaultBackend(copied), vaultID: vaultID, url: nil, configuration: configuration,
                    keys: keys)
                try copy.write { transaction in
                    for kind in [RecordKind.keyValueItem, .token] {
                        for row in try transaction.rows(kind: kind) {
                            let accessibility = try Domain(policyCode: row.policyCode, accessGroup: nil).accessibility
                            if accessibility.isDeviceBound { try transaction.delete(row) }
                        }
                    }
                }
            }  // closing checkpoints the copy into one file
            try SecureFile.restrictToOwner(temporary)
            try inspect(URL(fileURLWithPath: folder))
            guard try SecureFile.publish(temporary, at: path) else { throw VaultError.alreadyExists(path) }
        }
    }
}
