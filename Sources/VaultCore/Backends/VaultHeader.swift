/// The clear header of a vault, as every backend stores it.
struct VaultHeader {
    let formatVersion: Int
    let vaultID: [UInt8]
    /// The key epoch: bumped by every rotation of the master key.
    let epoch: UInt64

    /// Checks what any backend read: a known format, not newer than this library's, and an id of the
    /// right length.
    ///
    /// - Returns: The header.
    /// - Throws: ``VaultError/unsupportedFormat(_:)``, ``VaultError/integrity(_:)``.
    func validated() throws -> VaultHeader {
        if formatVersion > VaultFormat.currentVersion {
            throw VaultError.unsupportedFormat(
                "format version \(formatVersion) is newer than this library supports "
                    + "(\(VaultFormat.currentVersion)); upgrade TokenVault")
        }
        if formatVersion < 1 {
            throw VaultError.unsupportedFormat("format version \(formatVersion) is not a known version")
        }
        guard vaultID.count == VaultFormat.idByteCount else {
            throw VaultError.integrity("the vault header is malformed")
        }
        return self
    }
}
