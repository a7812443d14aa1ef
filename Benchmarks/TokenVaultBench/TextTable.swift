/// A table printed as Markdown (readable in a terminal, pasteable into PERFORMANCE.md): the first
/// column left-aligned, the others right-aligned (numbers) or left-aligned (text), every column
/// padded to its widest cell.
struct TextTable {
    /// The column headings.
    let headers: [String]
    /// Whether the columns after the first are right-aligned.
    let numeric: Bool
    /// The rows, each as many cells as there are headings.
    private(set) var rows: [[String]] = []

    /// A table with these headings; `numeric: false` left-aligns every column.
    init(_ headers: [String], numeric: Bool = true) {
        self.headers = headers
        self.numeric = numeric
    }

    /// Adds a row.
    mutating func add(_ cells: [String]) {
        precondition(cells.count == headers.count, "a row needs \(headers.count) cells")
        rows.append(cells)
    }

    /// The table as Markdown lines.
    var rendered: String {
        let widths = headers.indices.map { column in
            ([headers[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            let padded = cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 || !numeric ? cell + padding : padding + cell
            }
            return "| " + padded.joined(separator: " | ") + " |"
        }
        let rule = widths.enumerated().map { column, width in
            column == 0 || !numeric
                ? String(repeating: "-", count: width + 2) : String(repeating: "-", count: width + 1) + ":"
        }
        return ([line(headers), "|" + rule.joined(separator: "|") + "|"] + rows.map(line))
            .joined(separator: "\n")
    }
}
