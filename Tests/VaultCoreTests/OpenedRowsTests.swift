import Foundation
import TestSupport
import Testing
import TokenVault
import VaultCore

/// A write skips opening the default token's row again while its sealed bytes and clear columns are
/// the ones it opened last; a row changed outside the vault is opened, and refused, as ever.
@Suite struct OpenedRowsTests {
    let directory = TemporaryDirectory()

    func insert(_ id: String, into vault: Vault) throws -> Bool {
        try vault.insertTokenRecord(
            id: id, metadata: [], terms: [], secret: Array("token \(id)".utf8), policy: VaultPolicy(),
            defaultIfNone: true
        ).becameDefault
    }

    /// The default row keeps its sealed bytes but gets another version, written into the file behind
    /// the vault's back: the next store, which reads the default, must find the row no longer
    /// authenticates instead of taking what it opened before.
    @Test func aDefaultRowEditedOutsideTheVaultIsRefusedEvenAfterItWasOpened() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        #expect(try insert("first", into: vault))
        #expect(try !insert("second", into: vault))  // reads and opens the default row
        let raw = try RawVaultFile(url)
        let defaultRow = try #require(try raw.records().first { $0.kind == 5 })
        try raw.execute(
            "UPDATE records SET version = ? WHERE record_id = ?", .integer(defaultRow.version + 1),
            .blob(defaultRow.id))
        #expect(throws: VaultError.self) { _ = try insert("third", into: vault) }
    }

    /// The same row back as it was opened: the stores go on, and the vault verifies.
    @Test func storesAfterTheDefaultWasOpenedKeepTheDefaultAndVerify() throws {
        let (vault, _) = try TestVaults.onDisk(in: directory)
        #expect(try insert("first", into: vault))
        for index in 0..<20 { #expect(try !insert("token \(index)", into: vault)) }
        #expect(try vault.defaultTokenRecordID() == "first")
        _ = try vault.verify()
    }
}
