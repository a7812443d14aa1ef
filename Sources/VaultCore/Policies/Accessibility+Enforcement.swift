extension Accessibility {
    /// Classes whose keys are wiped when the unlock session ends (idle or absolute auto-lock).
    var endsWithSession: Bool {
        switch self {
        case .whenUnlocked, .whenUnlockedThisDeviceOnly, .whenPasscodeSetThisDeviceOnly: true
        case .afterFirstUnlock, .afterFirstUnlockThisDeviceOnly: false
        }
    }

    /// Classes whose keys also need this machine's device secret.
    var isDeviceBound: Bool {
        switch self {
        case .whenPasscodeSetThisDeviceOnly, .whenUnlockedThisDeviceOnly, .afterFirstUnlockThisDeviceOnly: true
        case .whenUnlocked, .afterFirstUnlock: false
        }
    }

    /// The class whose root comes from the passcode root that only passphrase slots carry.
    var needsPasscode: Bool { self == .whenPasscodeSetThisDeviceOnly }

    /// A stable small number for the file (the position in `allCases` never changes).
    var code: UInt8 { UInt8(Accessibility.allCases.firstIndex(of: self)!) }

    init?(code: UInt8) {
        guard Int(code) < Accessibility.allCases.count else { return nil }
        self = Accessibility.allCases[Int(code)]
    }
}
