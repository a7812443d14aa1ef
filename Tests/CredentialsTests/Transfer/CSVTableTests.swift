import Foundation
import Testing
import TokenVault

/// RFC 4180 as KeePassXC writes it: quoted fields, doubled quotes, line breaks inside quotes, a BOM.
@Suite struct CSVTableTests {
    @Test func quotedFieldsKeepCommasQuotesAndLineBreaks() throws {
        let text = "\u{FEFF}\"a\",\"b, c\",\"say \"\"hi\"\"\"\r\n\"line one\nline two\",\"\",plain\n"
        #expect(
            try CSVTable.parse(text) == [["a", "b, c", "say \"hi\""], ["line one\nline two", "", "plain"]])
    }

    @Test func formatThenParseGivesTheSameRecords() throws {
        let records = [["Group", "Title"], ["Root/x", "q\"uote"], ["multi\r\nline", ""], ["", "é ☃"]]
        #expect(try CSVTable.parse(CSVTable.format(records)) == records)
    }

    @Test func malformedTextIsRefusedWithItsLine() {
        #expect(throws: SecretTransferError.malformedCSV(line: 2, reason: "a quoted field is never closed")) {
            try CSVTable.parse("\"a\"\n\"open\nstill open")
        }
        #expect(throws: SecretTransferError.malformedCSV(line: 1, reason: "text follows a closing quote")) {
            try CSVTable.parse("\"a\"b,c")
        }
        #expect(throws: SecretTransferError.malformedCSV(line: 3, reason: "a quote inside an unquoted field")) {
            try CSVTable.parse("a\nb\nc\"d")
        }
    }
}
