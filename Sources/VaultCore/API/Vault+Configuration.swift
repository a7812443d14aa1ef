import Foundation

extension Vault {
    /// Settings for one process's use of a vault. Nothing here is stored in the file.
    public struct Configuration: Sendable {
        /// How long to wait for another process holding the write lock before failing with
        /// ``VaultError/storage(_:)``. 10 seconds by default.
        public var busyTimeout: Duration
        /// Inactivity after which the unlock session ends: the keys of `whenUnlocked`-type classes
        /// (and the master key) are wiped, and those items read as ``VaultError/locked`` until the
        /// next ``Vault/unlock(_:)``. `afterFirstUnlock` items stay readable. `nil`: never.
        public var idleTimeout: Duration?
        /// Time after unlocking when the unlock session ends however active it is. `nil`: never.
        public var sessionTimeout: Duration?
        /// The clock for both timeouts and for proof reuse windows.
        public var clock: any VaultClock
        /// The machine-local secret that `...ThisDeviceOnly` items are bound to; created (0600) the
        /// first time such an item is stored. By default
        /// `$XDG_DATA_HOME/tokenvault/device.secret` (`~/.local/share/tokenvault/device.secret`).
        public var deviceSecretURL: URL
        /// Whether to accept a vault file, key file or device secret whose mode grants its group or
        /// other users any permission. `false` by default: such files are refused with
        /// ``VaultError/insecurePermissions(_:)`` before they are read, as ssh refuses a loose
        /// private key, and the vault never changes the mode itself. Set it only where the mode
        /// cannot be fixed (a key file on a FAT-formatted stick, say) and other users cannot reach
        /// the file anyway.
        public var allowsInsecurePermissions: Bool
        /// For a vault in PostgreSQL: the most connections this process opens to it. Readers run
        /// side by side on them; writers queue on the vault's lock whatever the number. 4 by
        /// default; at least 1. A vault file ignores it.
        public var connections: Int
        /// For a vault in PostgreSQL: the longest one SQL statement may run before the server
        /// cancels it, and the operation fails with ``VaultError/storage(_:)`` having written
        /// nothing. 30 seconds by default; `nil` for no limit. A vault file ignores it.
        public var statementTimeout: Duration?

        /// Settings.
        ///
        /// - Parameters:
        ///   - busyTimeout: How long to wait for another process's lock.
        ///   - idleTimeout: Inactivity that ends the unlock session; `nil` for never.
        ///   - sessionTimeout: Time after unlocking that ends it; `nil` for never.
        ///   - clock: The clock for timeouts; the system's monotonic clock by default.
        ///   - deviceSecretURL: Where the device secret lives.
        ///   - allowsInsecurePermissions: Accept files that other users can read or write.
        ///   - connections: The most connections to a vault in PostgreSQL.
        ///   - statementTimeout: The longest a statement may run on PostgreSQL; `nil` for no limit.
        public init(
            busyTimeout: Duration = .seconds(10), idleTimeout: Duration? = nil, sessionTimeout: Duration? = nil,
            clock: any VaultClock = SystemVaultClock(), deviceSecretURL: URL? = nil,
            allowsInsecurePermissions: Bool = false, connections: Int = 4, statementTimeout: Duration? = .seconds(30)
        ) {
            self.busyTimeout = busyTimeout
            self.idleTimeout = idleTimeout
            self.sessionTimeout = sessionTimeout
            self.clock = clock
            self.deviceSecretURL = deviceSecretURL ?? DeviceSecret.defaultURL
            self.allowsInsecurePermissions = allowsInsecurePermissions
            self.connections = connections
            self.statementTimeout = statementTimeout
        }
    }
}
