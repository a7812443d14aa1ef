/// Not an error to print: the command reported its outcome itself (`exec` its program's status, a
/// credential helper its protocol's answer), and `tokenvault` exits with `status`.
struct ReportedExit: Error {
    let status: Int32
}
