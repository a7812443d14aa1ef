/// An option whose value is one of a fixed set: the cases feed the option's help, the parser's
/// check and the usage error, so the three cannot disagree.
protocol OptionChoice: CaseIterable, RawRepresentable, Sendable where RawValue == String {}

extension OptionChoice {
    /// The accepted values, in declaration order.
    static var choices: [String] { allCases.map(\.rawValue) }

    /// The usage error for any other value.
    static func invalid(_ option: String) -> UsageError {
        UsageError(option: option, mustBeOneOf: choices)
    }
}
