import VaultStorage

extension Vault {
    /// The vault file, opened and checked through its own descriptor before anything reads it:
    /// refused when its mode grants its group or others any permission, unless the configuration
    /// allows that. Keep it until ``openDatabase(_:configuration:)`` has proved that SQLite opened
    /// this same file.
    ///
    /// - Throws: ``VaultError/notFound(_:)``, ``VaultError/insecurePermissions(_:)``,
    ///   ``VaultError/unsupportedFormat(_:)`` (not a regular file), ``VaultError/storage(_:)``.
    static func pinVaultFile(at path: String, configuration: Configuration) throws -> PinnedFile {
        do {
            return try PinnedFile(path: path, refusingGroupOrOtherAccess: !configuration.allowsInsecurePermissions)
        } catch .missing {
            throw VaultError.notFound(path)
        } catch .insecurePermissions {
            throw VaultError.insecurePermissions(path)
        } catch .notARegularFile {
            throw VaultError.unsupportedFormat("\(path) is not a regular file")
        } catch {
            throw VaultError.storage("cannot open the vault file at \(path)")
        }
    }

    /// Opens the database of a pinned vault file, refusing it when SQLite reached another file
    /// (the path was swapped after the check).
    ///
    /// - Throws: ``VaultError/storage(_:)``, and what SQLite's errors translate to.
    static func openDatabase(_ file: PinnedFile, configuration: Configuration) throws -> SQLiteDatabase {
        do {
            return try file.openDatabase(busyTimeout: configuration.busyTimeout)
        } catch PinnedFile.Failure.replaced {
            throw VaultError.storage("the vault file at \(file.path) was replaced while it was being opened")
        }
    }
}
