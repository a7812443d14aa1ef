import Foundation

/// Why secrets could not be read from, or written to, another password manager's format. No case
/// carries a secret value: rows are named by number, entries by name.
public enum SecretTransferError: Error, Equatable, Sendable, LocalizedError {
    /// The CSV text breaks RFC 4180 on this line (1-based).
    case malformedCSV(line: Int, reason: String)
    /// The CSV header lacks a column the import needs.
    case missingColumn(String)
    /// A data row (1-based, after the header) has another number of fields than the header.
    case wrongFieldCount(row: Int, found: Int, expected: Int)
    /// A data row (1-based) has an empty title, so it maps to no name.
    case emptyTitle(row: Int)
    /// Two entries map to this name.
    case duplicateName(String)
    /// A name that cannot be written in the format (an empty, `.` or `..` path component).
    case invalidName(String)
    /// The secret's value is not UTF-8 text, which a text format cannot hold.
    case notText(name: String)
    /// No password store at this path.
    case noPasswordStore(String)
    /// No `.gpg-id` names the recipients for this folder of the store.
    case noRecipients(String)
    /// The file already exists and replacing was not asked for.
    case fileExists(String)

    /// What went wrong, naming rows, columns, names and paths, never a value.
    public var errorDescription: String? {
        switch self {
        case .malformedCSV(let line, let reason): "The CSV is malformed on line \(line): \(reason)."
        case .missingColumn(let name): "The CSV header has no \"\(name)\" column."
        case .wrongFieldCount(let row, let found, let expected):
            "CSV row \(row) has \(found) fields, the header \(expected)."
        case .emptyTitle(let row): "CSV row \(row) has no title, so it names no secret."
        case .duplicateName(let name): "Two entries map to the secret name \(name)."
        case .invalidName(let name): "The secret name \(name) cannot be written as a path."
        case .notText(let name): "The secret \(name) is not UTF-8 text, which this format cannot hold."
        case .noPasswordStore(let path): "No password store at \(path)."
        case .noRecipients(let path): "No .gpg-id names the recipients for \(path)."
        case .fileExists(let path): "\(path) already exists."
        }
    }
}
