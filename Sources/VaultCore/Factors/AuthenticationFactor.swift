/// The factors that can stand behind access control.
///
/// On a phone these are the passcode and a biometric; here the passcode factor is an enrolled
/// passphrase and the second factor is a key file held outside the vault (standing in for a
/// hardware token). Enrol them with ``Vault/enrollFactor(_:keyDerivation:)``.
public enum AuthenticationFactor: String, Sendable, CaseIterable, Codable {
    /// A passphrase re-entered at read time: satisfies `.devicePasscode` and `.userPresence`.
    case passcode
    /// A key file presented at read time: satisfies `.biometryAny`, `.biometryCurrentSet` and
    /// `.userPresence`.
    case secondFactor

    var code: UInt8 {
        switch self {
        case .passcode: 1
        case .secondFactor: 2
        }
    }

    init?(code: UInt8) {
        switch code {
        case 1: self = .passcode
        case 2: self = .secondFactor
        default: return nil
        }
    }
}
