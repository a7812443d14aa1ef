/// The security options of one item: accessibility class, access group and access control.
///
/// Stored inside the item's authenticated data, so a policy cannot be edited in the file.
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
