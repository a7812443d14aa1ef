import Foundation

/// The CSV a KeePassXC database exports (Database > Export > CSV File), read and written.
///
/// Names: an entry's group path without the database's root group, then its title, joined with
/// `/`. `Root/Work` + `GitHub` is the secret `Work/GitHub`; an entry of the root group is named
/// by its title alone. Writing splits a name at its last `/`: `Work/GitHub` becomes group
/// `Root/Work`, title `GitHub`, which reads back as the same name. A secret holds one value, the
/// password: Username, URL, Notes and TOTP are not kept, and ``Parsed/entriesWithDroppedFields``
/// counts the entries that had any.
public enum KeePassXCCSV {
    /// The columns written, in KeePassXC's order.
    public static let header = ["Group", "Title", "Username", "Password", "URL", "Notes"]
    /// The root group written for every entry.
    public static let rootGroup = "Root"
    /// The columns whose content a secret cannot keep.
    static let droppedColumns = ["Username", "URL", "Notes", "TOTP"]

    /// What an export held.
    public struct Parsed: Sendable {
        /// The entries, in the file's order.
        public let entries: [SecretTransferEntry]
        /// How many entries had a username, URL, notes or TOTP, which are not kept.
        public let entriesWithDroppedFields: Int
    }

    /// Reads an export.
    ///
    /// - Parameter data: The file's bytes (UTF-8, with or without a byte-order mark).
    /// - Returns: The entries and how many had fields that are not kept.
    /// - Throws: ``SecretTransferError`` for text that is not UTF-8 or not RFC 4180, a header
    ///   without Title or Password, a row of the wrong width or without a title, or two rows
    ///   naming one secret.
    public static func parse(_ data: Data) throws -> Parsed {
        guard let text = String(data: data, encoding: .utf8) else {
            throw SecretTransferError.malformedCSV(line: 1, reason: "the file is not UTF-8 text")
        }
        var records = try CSVTable.parse(text)
        guard !records.isEmpty else { throw SecretTransferError.missingColumn("Title") }
        let columns = records.removeFirst()
        func column(_ name: String) -> Int? { columns.firstIndex(of: name) }
        guard let title = column("Title") else { throw SecretTransferError.missingColumn("Title") }
        guard let password = column("Password") else { throw SecretTransferError.missingColumn("Password") }
        let group = column("Group")
        let dropped = droppedColumns.compactMap(column)
        var entries: [SecretTransferEntry] = []
        var withDroppedFields = 0
        for (offset, record) in records.enumerated() {
            let row = offset + 1
            guard record.count == columns.count else {
                throw SecretTransferError.wrongFieldCount(row: row, found: record.count, expected: columns.count)
            }
            guard !record[title].isEmpty else { throw SecretTransferError.emptyTitle(row: row) }
            let groups = group.map { record[$0].split(separator: "/").dropFirst().map(String.init) } ?? []
            let name = (groups + [record[title]]).joined(separator: "/")
            entries.append(SecretTransferEntry(name: name, value: Data(record[password].utf8)))
            if dropped.contains(where: { !record[$0].isEmpty }) { withDroppedFields += 1 }
        }
        try SecretTransferEntry.checkUnique(entries)
        return Parsed(entries: entries, entriesWithDroppedFields: withDroppedFields)
    }

    /// Writes an export KeePassXC imports (Database > Import > CSV File).
    ///
    /// - Parameter entries: The secrets.
    /// - Returns: The CSV bytes, holding every value in clear.
    /// - Throws: ``SecretTransferError/notText(name:)`` for a value that is not UTF-8 text.
    public static func format(_ entries: [SecretTransferEntry]) throws -> Data {
        let rows = try entries.map { entry -> [String] in
            guard let value = String(data: entry.value, encoding: .utf8) else {
                throw SecretTransferError.notText(name: entry.name)
            }
            var groups = entry.name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            let title = groups.removeLast()
            return [([rootGroup] + groups).joined(separator: "/"), title, "", value, "", ""]
        }
        return Data(CSVTable.format([header] + rows).utf8)
    }
}
