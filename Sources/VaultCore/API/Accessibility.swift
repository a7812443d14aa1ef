/// When an item can be read, after Apple's keychain accessibility classes.
///
/// On a server or CLI these map onto vault policies; see SECURITY.md for how each is enforced.
public enum Accessibility: String, Sendable, CaseIterable, Codable {
    /// Readable only inside a live unlock session; the idle auto-lock wipes this class's keys.
    case whenUnlocked
    /// Readable from the first unlock until `lock()` or process exit. The default.
    case afterFirstUnlock
    /// Needs a passphrase slot, and is bound to this machine's device secret.
    case whenPasscodeSetThisDeviceOnly
    /// As ``whenUnlocked``, and bound to this machine's device secret.
    case whenUnlockedThisDeviceOnly
    /// As ``afterFirstUnlock``, and bound to this machine's device secret.
    case afterFirstUnlockThisDeviceOnly
}
