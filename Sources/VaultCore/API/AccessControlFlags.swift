/// Presence requirements for reading an item, after the keychain's `SecAccessControlCreateFlags`.
public struct AccessControlFlags: OptionSet, Sendable, Hashable, Codable {
    /// The flag bits (stored authenticated with the item).
    public let rawValue: UInt32

    /// Flags from their bits.
    ///
    /// - Parameter rawValue: The bits.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Any proof of the user's presence.
    public static let userPresence = AccessControlFlags(rawValue: 1 << 0)
    /// Any enrolled second factor (a biometric on a phone; a factor key here).
    public static let biometryAny = AccessControlFlags(rawValue: 1 << 1)
    /// The second factor enrolled when the item was stored; invalidated when it changes.
    public static let biometryCurrentSet = AccessControlFlags(rawValue: 1 << 3)
    /// The device passcode (the vault passphrase here).
    public static let devicePasscode = AccessControlFlags(rawValue: 1 << 4)
    /// Any one of the listed requirements is enough.
    public static let or = AccessControlFlags(rawValue: 1 << 14)
    /// All of the listed requirements are needed.
    public static let and = AccessControlFlags(rawValue: 1 << 15)
}
