import Foundation
import TestSupport
import Testing
import TokenVault
import VaultCore

/// A write skips opening the default token's row and the digest again while their sealed bytes and
/// clear columns are the ones the session opened or sealed last; a row changed outside the vault
/// is opened, and refused, as ever.
@Suite struct OpenedRowsTests {
    let directory = TemporaryDirectory()

    func insert(_ id: String, into vault: Vault) throws -> Bool {
        try vault.insertTokenRecord(
            id: id, metadata: [], terms: [], secret: Array("token \(id)".utf8), policy: VaultPolicy(),
            defaultIfNone: true
        ).becameDefault
    }

    /// The default row keeps its sealed bytes but gets another version, written into the file behind
    /// the vault's back: the next store, which reads the default again since the file changed under
    /// it, must find the row no longer authenticates instead of taking what it opened before.
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

    /// The digest a store sealed, put back by its predecessor outside the vault (a rollback of the
    /// digest alone): the next store must open what the file holds, not take the digest it sealed,
    /// so the rolled-back digest cannot come to match the records again.
    @Test func aDigestRolledBackAfterTheSessionSealedItIsOpenedNotRemembered() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        #expect(try insert("first", into: vault))
        let raw = try RawVaultFile(url)
        let earlier = try #require(try raw.sealedDigest())
        #expect(try !insert("second", into: vault))  // seals the digest this session then knows
        try raw.setSealedDigest(earlier)
        #expect(throws: VaultError.self) {
            _ = try insert("third", into: vault)
            _ = try vault.verify()
        }
    }

    /// Once a store has found the default set, the next stores take that from what this process
    /// knows instead of reading it again. Removing the default token, or clearing the default,
    /// through the same vault must end that: the next store becomes the default, as a first one does.
    @Test func aDefaultRemovedOrClearedThroughThisVaultLetsTheNextStoreBecomeTheDefault() throws {
        let (vault, _) = try TestVaults.onDisk(in: directory)
        #expect(try insert("first", into: vault))
        #expect(try !insert("second", into: vault))  // finds the default set, and remembers it
        #expect(try !insert("third", into: vault))

        #expect(try vault.removeTokenRecord(id: "first"))
        #expect(try insert("fourth", into: vault))
        #expect(try !insert("fifth", into: vault))
        #expect(try !insert("sixth", into: vault))

        try vault.setDefaultTokenRecordID(nil)
        #expect(try insert("seventh", into: vault))
        #expect(try !insert("eighth", into: vault))
        #expect(try vault.defaultTokenRecordID() == "seventh")

        // A token that is not the default, removed, leaves the default as it is.
        #expect(try !vault.removeTokenRecord(id: "eighth"))
        #expect(try !insert("ninth", into: vault))
        #expect(try vault.defaultTokenRecordID() == "seventh")
        _ = try vault.verify()
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
