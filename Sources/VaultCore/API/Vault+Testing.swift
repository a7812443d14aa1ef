extension Vault {
    /// Caps the file at `pages` database pages, so the next growing write fails exactly as on a
    /// full disk. For tests of the full-disk path only: package-internal, not public API.
    package func limitFileSizeForTesting(pages: Int) throws {
        try database.write { try $0.limitPageCount(to: pages) }
    }
}
