/// What an access-control flag set demands, as terms of factors: every term must be satisfied
/// (`.and`), and any one target satisfies a term (`.or`, or `.userPresence`).
struct AccessRequirement: Equatable {
    struct Target: Hashable {
        let factor: AuthenticationFactor
        /// Bound to the factor's current enrolment (`.biometryCurrentSet`).
        let bindsEnrollment: Bool
    }

    let terms: [[Target]]

    /// Plans `flags` against the enrolled factors.
    ///
    /// - Returns: `nil` for no access control.
    /// - Throws: ``VaultError/unsupportedPolicy(_:)`` for any combination that cannot be enforced:
    ///   unknown bits, several constraints without `.or`/`.and`, both conjunctions, a conjunction
    ///   alone, or a factor that is not enrolled.
    static func plan(_ flags: AccessControlFlags, enrolled: Set<AuthenticationFactor>) throws -> AccessRequirement? {
        let known: AccessControlFlags = [.userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode, .or, .and]
        guard known.isSuperset(of: flags) else {
            throw VaultError.unsupportedPolicy("access-control flags this version does not know")
        }
        let constraints: [AccessControlFlags] = [.userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode]
            .filter { flags.contains($0) }
        let either = flags.contains(.or)
        let both = flags.contains(.and)
        if constraints.isEmpty {
            if either || both { throw VaultError.unsupportedPolicy(".or and .and need at least one constraint") }
            return nil
        }
        if either && both { throw VaultError.unsupportedPolicy(".or and .and cannot be combined") }
        if constraints.count > 1 && !either && !both {
            throw VaultError.unsupportedPolicy("several access-control constraints need .or or .and between them")
        }
        let termsPerConstraint = try constraints.map { try targets(for: $0, enrolled: enrolled) }
        return AccessRequirement(terms: both ? termsPerConstraint : [termsPerConstraint.flatMap { $0 }])
    }

    private static func targets(for constraint: AccessControlFlags, enrolled: Set<AuthenticationFactor>) throws
        -> [Target]
    {
        func require(_ factor: AuthenticationFactor) throws {
            guard enrolled.contains(factor) else {
                throw VaultError.unsupportedPolicy(
                    "no \(factor.rawValue) factor is enrolled in this vault (see Vault.enrollFactor)")
            }
        }
        switch constraint {
        case .devicePasscode:
            try require(.passcode)
            return [Target(factor: .passcode, bindsEnrollment: false)]
        case .biometryAny:
            try require(.secondFactor)
            return [Target(factor: .secondFactor, bindsEnrollment: false)]
        case .biometryCurrentSet:
            try require(.secondFactor)
            return [Target(factor: .secondFactor, bindsEnrollment: true)]
        default:  // userPresence: any enrolled factor
            let available = AuthenticationFactor.allCases.filter(enrolled.contains)
            guard !available.isEmpty else {
                throw VaultError.unsupportedPolicy("userPresence needs an enrolled factor (see Vault.enrollFactor)")
            }
            return available.map { Target(factor: $0, bindsEnrollment: false) }
        }
    }
}
