import Foundation
import Testing
import TokenVault

/// KeePassXC's CSV export mapped to secret names and back.
@Suite struct KeePassXCCSVTests {
    static let export = #"""
        "Group","Title","Username","Password","URL","Notes","TOTP","Icon","Last Modified","Created"
        "Root","top","","pw-top","","","","0","2026-01-01T00:00:00Z","2026-01-01T00:00:00Z"
        "Root/Work/CI","deploy","bot","pw,""deploy""","https://ci.example.com","line 1
        line 2","","0","2026-01-01T00:00:00Z","2026-01-01T00:00:00Z"

        """#

    @Test func groupsWithoutTheRootAndTheTitleNameTheSecret() throws {
        let parsed = try KeePassXCCSV.parse(Data(Self.export.utf8))
        #expect(parsed.entries.map(\.name) == ["top", "Work/CI/deploy"])
        #expect(parsed.entries.map { String(decoding: $0.value, as: UTF8.self) } == ["pw-top", "pw,\"deploy\""])
        #expect(parsed.entriesWithDroppedFields == 1)
    }

    @Test func writtenExportsReadBackAsTheSameEntries() throws {
        let entries = [
            SecretTransferEntry(name: "top", value: Data("a".utf8)),
            SecretTransferEntry(name: "Work/CI/deploy", value: Data("b\"c\nd".utf8)),
        ]
        let written = try KeePassXCCSV.format(entries)
        #expect(String(decoding: written, as: UTF8.self).hasPrefix(#""Group","Title","Username","Password""#))
        #expect(try KeePassXCCSV.parse(written).entries == entries)
        #expect(throws: SecretTransferError.notText(name: "bin")) {
            try KeePassXCCSV.format([SecretTransferEntry(name: "bin", value: Data([0xFF]))])
        }
    }

    @Test func rowsThatNameNoSecretOrTheSameOneAreRefused() {
        #expect(throws: SecretTransferError.missingColumn("Password")) {
            try KeePassXCCSV.parse(Data("\"Group\",\"Title\"\n\"Root\",\"x\"\n".utf8))
        }
        #expect(throws: SecretTransferError.emptyTitle(row: 1)) {
            try KeePassXCCSV.parse(Data("\"Title\",\"Password\"\n\"\",\"p\"\n".utf8))
        }
        #expect(throws: SecretTransferError.wrongFieldCount(row: 2, found: 1, expected: 2)) {
            try KeePassXCCSV.parse(Data("\"Title\",\"Password\"\n\"a\",\"p\"\n\"b\"\n".utf8))
        }
        #expect(throws: SecretTransferError.duplicateName("G/a")) {
            try KeePassXCCSV.parse(
                Data("\"Group\",\"Title\",\"Password\"\n\"R/G\",\"a\",\"1\"\n\"X/G\",\"a\",\"2\"\n".utf8))
        }
    }

    @Test func anEntryDescribesItselfWithoutItsValue() {
        let entry = SecretTransferEntry(name: "n", value: Data("hunter2".utf8))
        #expect(!"\(entry)".contains("hunter2") && !String(reflecting: entry).contains("hunter2"))
    }
}
