extension Vault {
    /// Settings for opening a vault. Nothing here is stored in the file.
    public struct Configuration: Sendable {
        /// How long to wait for another process holding the write lock before failing with
        /// ``VaultError/storage(_:)``. 10 seconds by default.
        public var busyTimeout: Duration

        /// Settings.
        ///
        /// - Parameter busyTimeout: How long to wait for another process's lock.
        public init(busyTimeout: Duration = .seconds(10)) {
            self.busyTimeout = busyTimeout
        }
    }
}
