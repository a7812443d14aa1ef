import Foundation
import TestSupport
import Testing
import TokenVault
import VaultCore
import VaultStorage

/// The record store on its own, on a real SQLite file with a vault's tables: rows and opaque
/// bytes in, the same rows and bytes out, and no write over a version the writer did not read.
@Suite struct RecordStoreTests {
    let directory = TemporaryDirectory()
    let database: SQLiteDatabase

    init() throws {
        let path = directory.file("records.db").path
        _ = try SecureFile.createExclusive(path)
        database = try SQLiteDatabase(path: path, mode: .readWrite, busyTimeout: .seconds(10))
        try database.write { try $0.execute(Vault.schemaForBenchmarking) }
    }

    /// Runs `body` on a store in one write transaction (committed on return).
    func write<Result>(_ body: (SQLiteRecordStore) throws -> Result) throws -> Result {
        try database.write { try body(SQLiteRecordStore($0)) }
    }

    /// Runs `body` on a store over a fresh read snapshot, so it sees only what was committed.
    func read<Result>(_ body: (SQLiteRecordStore) throws -> Result) throws -> Result {
        try database.read { try body(SQLiteRecordStore($0)) }
    }

    static func row(
        id: UInt8, kind: RecordKind = .keyValueItem, lookup: UInt8? = nil, version: UInt64 = 1,
        sealed: [UInt8] = [1, 2, 3], scope: [UInt8]? = nil
    ) -> RecordRow {
        RecordRow(
            id: [UInt8](repeating: id, count: 16), kind: kind, lookup: lookup.map { [UInt8](repeating: $0, count: 32) },
            domainID: [UInt8](repeating: 0xd0, count: 16), policyCode: 0x0102, version: version, sealed: sealed,
            scope: scope)
    }

    static func isConflict(_ error: VaultError?) -> Bool {
        if case .conflict = error { return true }
        return false
    }

    @Test func lookUpReturnsTheRowFiledUnderATag() throws {
        let scoped = Self.row(id: 1, lookup: 0xa1, scope: [UInt8](repeating: 0x5c, count: 16))
        let unnamed = Self.row(id: 2, kind: .token, lookup: nil)
        try write { store in
            try store.insert(scoped)
            try store.insert(unnamed)
        }
        #expect(try read { try $0.row(lookup: scoped.lookup!) } == scoped)
        #expect(try read { try $0.row(lookup: [UInt8](repeating: 0xee, count: 32)) } == nil)
    }

    @Test func aLookUpTagOrIdIsFiledOnce() throws {
        try write { try $0.insert(Self.row(id: 1, lookup: 0xa1)) }
        #expect(throws: StorageError.self) { try write { try $0.insert(Self.row(id: 2, lookup: 0xa1)) } }
        #expect(throws: StorageError.self) { try write { try $0.insert(Self.row(id: 1, lookup: 0xa2)) } }
        #expect(try read { try $0.rows() }.map(\.id) == [Self.row(id: 1).id])
    }

    @Test func scansReturnEveryRowOrOneKindInIdOrder() throws {
        let rows = [
            Self.row(id: 3, kind: .token, lookup: 0xa3, sealed: [UInt8](repeating: 7, count: 10)),
            Self.row(id: 1, kind: .keyValueItem, lookup: 0xa1),
            Self.row(id: 2, kind: .token, lookup: 0xa2, sealed: [UInt8](repeating: 7, count: 30)),
            Self.row(id: 4, kind: .lease, lookup: 0xa4),
        ]
        try write { store in for row in rows { try store.insert(row) } }
        #expect(try read { try $0.rows() } == rows.sorted { $0.id.lexicographicallyPrecedes($1.id) })
        #expect(try read { try $0.rows(kind: .token) } == [rows[2], rows[0]])
        #expect(try read { try $0.rows(kind: .factor) } == [])
        let sizes = try read { try $0.sizes(kind: .token) }
        #expect(sizes.count == 2 && sizes.sealedByteCount == 40)
        let none = try read { try $0.sizes(kind: .factor) }
        #expect(none.count == 0 && none.sealedByteCount == 0)
    }

    @Test func aKindIsReadAPageAtATimeInIdOrder() throws {
        // Tokens with ids 1 to 7, another kind's rows between them.
        let tokens = (1...7).map { Self.row(id: UInt8($0) * 2, kind: .token, lookup: UInt8($0) * 2) }
        let others = (1...7).map { Self.row(id: UInt8($0) * 2 + 1, kind: .keyValueItem, lookup: UInt8($0) * 2 + 1) }
        try write { store in for row in (others + tokens).reversed() { try store.insert(row) } }
        var pages: [[RecordRow]] = []
        var last: [UInt8]?
        repeat {
            pages.append(try read { try $0.rows(kind: .token, after: last, limit: 3) })
            last = pages.last?.last?.id
        } while pages.last?.count == 3
        #expect(pages == [Array(tokens[0..<3]), Array(tokens[3..<6]), [tokens[6]]])
        #expect(try read { try $0.rows(kind: .token, after: tokens[6].id, limit: 3) } == [])
        // An id that is no row's starts the page after it all the same.
        #expect(try read { try $0.rows(kind: .token, after: others[1].id, limit: 2) } == Array(tokens[2..<4]))
    }

    @Test func everyRowIsReadAPageAtATimeInIdOrder() throws {
        let rows = (1...7).map {
            Self.row(id: UInt8($0), kind: $0 % 2 == 0 ? .token : .keyValueItem, lookup: UInt8($0))
        }
        try write { store in
            for row in rows.reversed() { try store.insert(row) }
            // The digest row sorts after every record and is no record: no page holds it.
            try store.setSealedDigest([7, 7], scope: nil)
        }
        var pages: [[RecordRow]] = []
        var last: [UInt8]?
        repeat {
            pages.append(try read { try $0.rows(after: last, limit: 3) })
            last = pages.last?.last?.id
        } while pages.last?.count == 3
        #expect(pages == [Array(rows[0..<3]), Array(rows[3..<6]), [rows[6]]])
        #expect(pages.flatMap { $0 } == (try read { try $0.rows() }))
        #expect(try read { try $0.rows(after: rows[6].id, limit: 3) } == [])
        // An id that is no row's starts the page after it all the same.
        let between = [UInt8](repeating: 2, count: 15) + [9]
        #expect(try read { try $0.rows(after: between, limit: 2) } == Array(rows[2..<4]))
    }

    @Test func anUpdateAtTheVersionReadReplacesTheRow() throws {
        let original = Self.row(id: 1, lookup: 0xa1, version: 4)
        try write { try $0.insert(original) }
        let next = Self.row(id: 1, lookup: 0xa9, version: 5, sealed: [9, 9], scope: [UInt8](repeating: 1, count: 16))
        try write { try $0.update(next, expectedVersion: 4) }
        #expect(try read { try $0.rows() } == [next])
        #expect(try read { try $0.row(lookup: original.lookup!) } == nil)
    }

    @Test func theCompareAndSwapRefusesAStaleVersion() throws {
        try write { try $0.insert(Self.row(id: 1, lookup: 0xa1, version: 1)) }
        let second = Self.row(id: 1, lookup: 0xa1, version: 2, sealed: [2])
        try write { try $0.update(second, expectedVersion: 1) }
        // A writer that read version 1 must not overwrite version 2.
        let stale = #expect(throws: VaultError.self) {
            try write { try $0.update(Self.row(id: 1, lookup: 0xa1, version: 2, sealed: [3]), expectedVersion: 1) }
        }
        #expect(Self.isConflict(stale))
        #expect(try read { try $0.rows() } == [second])
        let missing = #expect(throws: VaultError.self) {
            try write { try $0.update(Self.row(id: 7, version: 2), expectedVersion: 1) }
        }
        #expect(Self.isConflict(missing))
        #expect(try read { try $0.rows() } == [second])
    }

    @Test func aDeleteRemovesOnlyTheVersionRead() throws {
        let kept = Self.row(id: 2, lookup: 0xa2)
        try write { store in
            try store.insert(Self.row(id: 1, lookup: 0xa1, version: 3))
            try store.insert(kept)
        }
        let stale = #expect(throws: VaultError.self) { try write { try $0.delete(Self.row(id: 1, version: 2)) } }
        #expect(Self.isConflict(stale))
        #expect(try read { try $0.rows() }.count == 2)
        try write { try $0.delete(Self.row(id: 1, version: 3)) }
        #expect(try read { try $0.rows() } == [kept])
        #expect(try read { try $0.row(lookup: Self.row(id: 1, lookup: 0xa1).lookup!) } == nil)
        let gone = #expect(throws: VaultError.self) { try write { try $0.delete(Self.row(id: 1, version: 3)) } }
        #expect(Self.isConflict(gone))
    }

    @Test func digestRowsKeepTheirBytesPerScope() throws {
        let groupA = [UInt8](repeating: 0x0a, count: 16)
        let groupB = [UInt8](repeating: 0x0b, count: 16)
        #expect(try read { try $0.sealedDigest(scope: nil) } == nil)
        #expect(try read { try $0.sealedDigest(scope: groupA) } == nil)
        try write { store in
            try store.setSealedDigest([1, 1, 1], scope: nil)
            try store.setSealedDigest([2, 2], scope: groupB)
            try store.setSealedDigest([3], scope: groupA)
        }
        #expect(try read { try $0.sealedDigest(scope: nil) } == [1, 1, 1])
        #expect(try read { try $0.sealedDigest(scope: groupA) } == [3])
        #expect(try read { try $0.sealedDigest(scope: groupB) } == [2, 2])
        #expect(try read { try $0.digestScopes() } == [groupA, groupB])

        try write { store in
            try store.setSealedDigest([4, 4], scope: nil)
            try store.setSealedDigest([5], scope: groupA)
        }
        #expect(try read { try $0.sealedDigest(scope: nil) } == [4, 4])
        #expect(try read { try $0.sealedDigest(scope: groupA) } == [5])
        #expect(try read { try $0.digestScopes() } == [groupA, groupB])

        try write { try $0.removeGroupDigests() }
        #expect(try read { try $0.digestScopes() } == [])
        #expect(try read { try $0.sealedDigest(scope: groupB) } == nil)
        #expect(try read { try $0.sealedDigest(scope: nil) } == [4, 4])
    }

    @Test func aThrowingTransactionLeavesTheStoreAsItWas() throws {
        struct Abort: Error {}
        try write { try $0.insert(Self.row(id: 1, lookup: 0xa1)) }
        #expect(throws: Abort.self) {
            try write { store in
                try store.update(Self.row(id: 1, lookup: 0xa1, version: 2, sealed: [8]), expectedVersion: 1)
                try store.insert(Self.row(id: 2, lookup: 0xa2))
                try store.setSealedDigest([9], scope: nil)
                throw Abort()
            }
        }
        #expect(try read { try $0.rows() } == [Self.row(id: 1, lookup: 0xa1)])
        #expect(try read { try $0.sealedDigest(scope: nil) } == nil)
    }

    @Test func theBenchmarkHookCountsTokenRecordsThroughTheStore() throws {
        let (vault, url, _) = try TestVaults.keyFileVault(in: directory)
        let storage = try VaultTokenStorage(vault: vault)
        for index in 0..<3 {
            let token = TestTokens.token(subject: "user-\(index)@example.com")
            _ = try storage.add(token: token, metadata: Token.Metadata(token: token, tags: [:]), security: [])
        }
        try vault.set("not a token", for: SecretKey<String>("item"))
        let sizes = try vault.tokenRecordSizesForBenchmarking()
        let tokens = try RawVaultFile(url).records().filter { $0.kind == Int64(RecordKind.token.rawValue) }
        #expect(sizes.count == 3 && tokens.count == 3)
        #expect(sizes.meanSealedByteCount == Double(tokens.map(\.sealed.count).reduce(0, +)) / 3)
    }

    @Test func newIdsSortAfterEveryIdInTheTable() throws {
        #expect(try write { try $0.nextRecordID() }.count == 16)
        try write { try $0.insert(Self.row(id: 0x7f)) }
        var previous = [UInt8](repeating: 0x7f, count: 16)
        for _ in 0..<20 {
            let id = try write { store in
                let id = try store.nextRecordID()
                try store.insert(
                    RecordRow(
                        id: id, kind: .keyValueItem, lookup: nil, domainID: [UInt8](repeating: 0xd0, count: 16),
                        policyCode: 0, version: 1, sealed: [1], scope: nil))
                return id
            }
            #expect(id.lexicographicallyPrecedes(previous) == false && id != previous)
            previous = id
        }
        // With the counter half at its largest, a new id is random, and still new. (Sixteen 0xFF
        // bytes are the digest row's id, which no record has.)
        let largest = [UInt8](repeating: 0xff, count: 8) + [UInt8](repeating: 0, count: 8)
        try write { store in
            try store.insert(
                RecordRow(
                    id: largest, kind: .keyValueItem, lookup: nil, domainID: [UInt8](repeating: 0xd0, count: 16),
                    policyCode: 0, version: 1, sealed: [1], scope: nil))
        }
        let random = try write { try $0.nextRecordID() }
        #expect(random.count == 16 && random != largest && random != SQLiteRecordStore.digestRowID)
    }

    /// The vault-wide digest is a row of `records` after every record id, which no query of
    /// records returns and no new id reaches.
    @Test func theDigestRowIsNoRecord() throws {
        try write { store in
            try store.setSealedDigest([1, 2], scope: nil)
            try store.insert(Self.row(id: 0x10, kind: .token, lookup: 0xa1))
        }
        #expect(try read { try $0.rows() } == [Self.row(id: 0x10, kind: .token, lookup: 0xa1)])
        #expect(try read { try $0.row(id: SQLiteRecordStore.digestRowID) } == nil)
        #expect(try read { try $0.versions(kind: .token) }.map(\.id.bytes) == [Self.row(id: 0x10).id])
        #expect(try read { try $0.sizes(kind: .token) }.count == 1)
        let next = try write { try $0.nextRecordID() }
        #expect(Array(next.prefix(8)) == [UInt8](repeating: 0x10, count: 7) + [0x11])
        try write { try $0.setSealedDigest([3], scope: nil) }
        #expect(try read { try $0.sealedDigest(scope: nil) } == [3])
        let raw = try RawVaultFile(directory.file("records.db"))
        #expect(try raw.integer("SELECT count(*) FROM records") == 2)
    }

    /// A token row as the vault writes it, with an id from the store, and its 6 index entries, one
    /// of them under `term`.
    func insertIndexed(term: [UInt8]) throws -> [UInt8] {
        try write { store in
            let id = try store.nextRecordID()
            try store.insert(
                RecordRow(
                    id: id, kind: .token, lookup: SecureRandom.bytes(count: 32),
                    domainID: [UInt8](repeating: 0xd0, count: 16), policyCode: 0, version: 1, sealed: [1], scope: nil))
            try store.fileTerms([term] + (1..<6).map { _ in SecureRandom.bytes(count: 16) }, removing: [], of: id)
            return id
        }
    }

    @Test func aWritesEntriesStayInItsRowUntilEnoughRecordsWaitThenAreFiledTogether() throws {
        let raw = try RawVaultFile(directory.file("records.db"))
        let term = [UInt8](repeating: 0x1e, count: 16)
        // The first write on an empty mark is filed at once and sets the mark.
        var ids = [try insertIndexed(term: term)]
        #expect(try raw.integer("SELECT count(*) FROM record_index") == 6)
        #expect(try raw.integer("SELECT count(*) FROM records WHERE terms IS NOT NULL") == 0)

        let limit = Int(UnfiledTerms.limit)
        for _ in 1..<limit { ids.append(try insertIndexed(term: term)) }
        #expect(try raw.integer("SELECT count(*) FROM record_index") == 6)
        #expect(try raw.integer("SELECT count(*) FROM records WHERE length(terms) = 96") == Int64(limit - 1))
        #expect(try read { try $0.recordIDs(term: term) } == ids)
        #expect(try indexEntries().count == limit * 6)

        // The write that makes the limit files every waiting record, in one transaction.
        ids.append(try insertIndexed(term: term))
        #expect(try raw.integer("SELECT count(*) FROM records WHERE terms IS NOT NULL") == 0)
        #expect(try raw.integer("SELECT count(*) FROM record_index") == Int64((limit + 1) * 6))
        #expect(try read { try $0.recordIDs(term: term) } == ids)

        // A record that drops a term leaves it, filed or still in its row alike.
        let waiting = try insertIndexed(term: term)
        let other = SecureRandom.bytes(count: 16)
        try write { store in
            try store.fileTerms([other], removing: [term], of: ids[0])
            try store.fileTerms([other], removing: [term], of: waiting)
        }
        #expect(try read { try $0.recordIDs(term: term) } == Array(ids.dropFirst()))
        #expect(try read { try $0.recordIDs(term: other) } == [ids[0], waiting])
        #expect(try raw.integer("SELECT length(terms) FROM records WHERE terms IS NOT NULL") == 16)
        try write { try $0.removeAllIndexEntries() }
        #expect(try indexEntries().isEmpty)
        #expect(try raw.integer("SELECT count(*) FROM records WHERE terms IS NOT NULL") == 0)
    }

    /// Every index entry, as `forEachIndexEntry` hands them over from one snapshot.
    func indexEntries() throws -> [IndexEntry] {
        try read { store in
            var entries: [IndexEntry] = []
            try store.forEachIndexEntry { entries.append($0) }
            return entries
        }
    }

    /// `forEachIndexEntry` gives each entry once: a term a waiting record lists twice, and a filed
    /// entry repeating a waiting one, count once, beside every entry filed below the mark.
    @Test func indexEntriesGivesEachEntryOnce() throws {
        let term = [UInt8](repeating: 0x2e, count: 16)
        _ = try insertIndexed(term: term)  // filed at once: it sets the mark
        let waiting = try insertIndexed(term: term)
        try write { store in
            try store.fileTerms([term, term], removing: [], of: waiting)
            try store.addIndexEntries([IndexEntry(term: term, recordID: waiting)])
        }
        let entries = try indexEntries()
        #expect(entries.count == 7)
        #expect(Set(entries).count == 7)
        #expect(entries.filter { $0.recordID == waiting } == [IndexEntry(term: term, recordID: waiting)])
    }

    /// The filed entries come a page at a time in the table's order: the pages join to every entry,
    /// each once, and a page may start after an entry the table does not hold.
    @Test func filedEntriesAreReadAPageAtATimeInTheIndexOrder() throws {
        let entries = (0..<10).map { _ in
            IndexEntry(term: SecureRandom.bytes(count: 16), recordID: SecureRandom.bytes(count: 16))
        }
        try write { try $0.addIndexEntries(entries) }
        var pages: [[IndexEntry]] = []
        var last: IndexEntry?
        repeat {
            pages.append(try read { try $0.filedIndexEntries(after: last, limit: 3) })
            last = pages.last?.last
        } while pages.last?.count == 3
        #expect(pages.map(\.count) == [3, 3, 3, 1])
        #expect(pages.flatMap { $0 } == entries.sorted())

        let sorted = entries.sorted()
        let between = IndexEntry(term: sorted[4].term, recordID: sorted[4].recordID + [0])
        #expect(try read { try $0.filedIndexEntries(after: between, limit: 3) } == Array(sorted[5..<8]))
    }

    /// More entries than a page of `forEachIndexEntry`, one of them also waiting in a record's row:
    /// every entry comes once.
    @Test func everyIndexEntryComesOnceAcrossPages() throws {
        let term = [UInt8](repeating: 0x3e, count: 16)
        _ = try insertIndexed(term: term)  // filed at once: it sets the mark
        let waiting = try insertIndexed(term: term)
        let filed = (0..<(2 * IndexEntry.perPage + 5)).map { _ in
            IndexEntry(term: SecureRandom.bytes(count: 16), recordID: SecureRandom.bytes(count: 16))
        }
        try write { try $0.addIndexEntries(filed + [IndexEntry(term: term, recordID: waiting)]) }
        let entries = try indexEntries()
        #expect(entries.count == filed.count + 12)
        #expect(Set(entries).count == entries.count)
        let everyFiledEntryCame = Set(filed).isSubset(of: Set(entries))
        #expect(everyFiledEntryCame)
    }
}
