/// The security options of one item: accessibility class, access group and access control.
///
/// Bound into the item's authenticated data (so a policy cannot be edited in the file) and enforced
/// by which keys exist, never by a flag:
///
/// | option | enforced by | does not protect against |
/// |---|---|---|
/// | `afterFirstUnlock` | a class root held from unlock to ``Vault/lock()`` | a dump of the running process |
/// | `whenUnlocked` | the session's end (idle or absolute timeout) drops the class root, the master key and the passcode root | a dump taken during the session |
/// | `...ThisDeviceOnly` | the domain key is also keyed with a 0600 device secret outside the vault | copying the device secret too |
/// | `whenPasscodeSetThisDeviceOnly` | a class root carried only by passphrase slots; refused without one; destroyed with the last | as above |
/// | `accessGroup` | a key per group; scoped key slots wrap only their groups' keys | a full-access unlock |
/// | `accessControl` | the value is sealed under shares sealed (`crypto_box_seal`) to enrolled factors' public keys; reading needs an ``AuthenticationContext`` proof | capture of the proof when entered |
///
/// A combination that cannot be enforced is refused with ``VaultError/unsupportedPolicy(_:)``.
public struct VaultPolicy: Sendable, Hashable, Codable {
    /// When the item can be read.
    public var accessibility: Accessibility
    /// The access group whose key domain holds the item, or `nil` for the vault's own.
    public var accessGroup: String?
    /// Presence requirements for reading the item's secret.
    public var accessControl: AccessControlFlags

    /// `afterFirstUnlock`, no access group, no access control.
    public static let `default` = VaultPolicy()

    /// A policy.
    ///
    /// - Parameters:
    ///   - accessibility: When the item can be read; `afterFirstUnlock` by default.
    ///   - accessGroup: The access group, or `nil`.
    ///   - accessControl: Presence requirements; none by default.
    public init(
        accessibility: Accessibility = .afterFirstUnlock, accessGroup: String? = nil,
        accessControl: AccessControlFlags = []
    ) {
        self.accessibility = accessibility
        self.accessGroup = accessGroup
        self.accessControl = accessControl
    }
}
