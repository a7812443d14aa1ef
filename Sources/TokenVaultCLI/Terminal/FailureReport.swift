import TokenVault

/// How a failed command ends: its exit status and the one line printed for it, the same whether
/// this process or the agent ran the command.
struct FailureReport {
    let status: Int32
    /// `nil` when the command reported its outcome itself (``ReportedExit``).
    let line: String?

    init(_ error: any Error) {
        switch error {
        case let reported as ReportedExit:
            (status, line) = (reported.status, nil)
        case let usage as UsageError:
            (status, line) = (ExitCode.usage.rawValue, "tokenvault: \(usage.message)")
        default:
            (status, line) = (ExitCode(error).rawValue, "tokenvault: \(ErrorMessage.text(for: error))")
        }
    }
}
