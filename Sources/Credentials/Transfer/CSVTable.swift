import Foundation

/// Comma-separated values as RFC 4180 defines them: fields in double quotes may hold commas, line
/// breaks and quotes (doubled); records end with CRLF or LF. A leading byte-order mark is skipped.
public enum CSVTable {
    /// The records of `text`, each a list of fields. Empty lines between records are skipped.
    ///
    /// - Parameter text: The CSV text.
    /// - Returns: The records.
    /// - Throws: ``SecretTransferError/malformedCSV(line:reason:)`` for a quote left open, text after
    ///   a closing quote, or a quote inside an unquoted field.
    public static func parse(_ text: String) throws -> [[String]] {
        var scalars = Substring(text).unicodeScalars[...]
        if scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst() }
        var records: [[String]] = []
        var record: [String] = []
        var field = String.UnicodeScalarView()
        var line = 1
        var index = scalars.startIndex
        func endField() {
            record.append(String(field))
            field = String.UnicodeScalarView()
        }
        func endRecord() {
            endField()
            if record != [""] { records.append(record) }
            record = []
        }
        while index < scalars.endIndex {
            let scalar = scalars[index]
            index = scalars.index(after: index)
            switch scalar {
            case "\"" where field.isEmpty:
                let opened = line
                while true {
                    guard index < scalars.endIndex else {
                        throw SecretTransferError.malformedCSV(line: opened, reason: "a quoted field is never closed")
                    }
                    let inner = scalars[index]
                    index = scalars.index(after: index)
                    if inner == "\"" {
                        guard index < scalars.endIndex, scalars[index] == "\"" else { break }
                        index = scalars.index(after: index)
                    } else if inner == "\n" {
                        line += 1
                    }
                    field.append(inner)
                }
                if index < scalars.endIndex, !",\r\n".unicodeScalars.contains(scalars[index]) {
                    throw SecretTransferError.malformedCSV(line: line, reason: "text follows a closing quote")
                }
            case "\"":
                throw SecretTransferError.malformedCSV(line: line, reason: "a quote inside an unquoted field")
            case ",":
                endField()
            case "\r" where index < scalars.endIndex && scalars[index] == "\n":
                continue
            case "\n":
                endRecord()
                line += 1
            default:
                field.append(scalar)
            }
        }
        if !field.isEmpty || !record.isEmpty { endRecord() }
        return records
    }

    /// The CSV text of `records`: every field quoted, quotes doubled, records ending in CRLF.
    ///
    /// - Parameter records: The records.
    /// - Returns: The text.
    public static func format(_ records: [[String]]) -> String {
        records.map { record in
            record.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: ",")
                + "\r\n"
        }.joined()
    }
}
