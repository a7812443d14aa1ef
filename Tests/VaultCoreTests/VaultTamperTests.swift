import Foundation
import TestSupport
import Testing
import TokenVault
import VaultCore

/// An attacker with write access to the file: every change to a sealed record is caught.
@Suite struct VaultTamperTests {
    let directory = TemporaryDirectory()

    func integrityError(_ body: () throws -> Void) -> Bool {
        do {
            try body()
            return false
        } catch let error as VaultError {
            if case .integrity = error { return true }
            return false
        } catch {
            return false
        }
    }

    /// Whether `error` is an integrity error, directly or as the cause of a credential-layer error.
    static func isIntegrity(_ error: any Error) -> Bool {
        switch error {
        case VaultError.integrity: true
        case CredentialError.storage(.integrity): true
        default: false
        }
    }

    /// The vault reads every item of `expected` back, and a token record too.
    func expectIntact(
        _ vault: Vault, _ expected: [String: String], token: Token?, _ comment: Comment,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for (name, value) in expected {
            #expect(try vault.get(SecretKey<String>(name)) == value, comment, sourceLocation: sourceLocation)
        }
        if let token {
            let stored = try VaultTokenStorage(vault: vault).token(
                id: token.id, prompt: nil, authenticationContext: nil)
            #expect(stored == token, comment, sourceLocation: sourceLocation)
        }
    }

    /// Truncating any record at every length short of its own: a key-value item and a token record,
    /// each among other records, with the vault opened once (key file, no Argon2) and the row put
    /// back between cases.
    @Test func truncatingASealedRecordAtEveryOffsetIsAnIntegrityErrorAndSparesTheOthers() throws {
        let (vault, url, _) = try TestVaults.keyFileVault(in: directory)
        let raw = try RawVaultFile(url)
        let storage = try VaultTokenStorage(vault: vault)
        try vault.set("the victim item", for: SecretKey<String>("victim"))
        let itemRow = try #require(try raw.records().first)
        let token = TestTokens.token(subject: "victim@example.com")
        _ = try storage.add(token: token, metadata: Token.Metadata(token: token, tags: [:]), security: [])
        let tokenRow = try #require(try raw.records().first { $0.id != itemRow.id && $0.sealed.count > 200 })
        var others: [String: String] = [:]
        for index in 0..<3 {
            others["other-\(index)"] = "value \(index)"
            try vault.set("value \(index)", for: SecretKey<String>("other-\(index)"))
        }
        let bystander = TestTokens.token(subject: "bystander@example.com")
        _ = try storage.add(token: bystander, metadata: Token.Metadata(token: bystander, tags: [:]), security: [])

        var cases = 0
        for (row, read) in [
            (itemRow, { () throws -> Void in _ = try vault.get(SecretKey<String>("victim")) }),
            (
                tokenRow,
                { () throws -> Void in _ = try storage.token(id: token.id, prompt: nil, authenticationContext: nil) }
            ),
        ] {
            for length in 0..<row.sealed.count {
                try raw.setSealed(Array(row.sealed.prefix(length)), forRecord: row.id)
                #expect(throws: (any Error).self, "truncated to \(length) of \(row.sealed.count)") { try read() }
                do {
                    try read()
                } catch {
                    #expect(Self.isIntegrity(error), "truncated to \(length): \(error)")
                }
                #expect(integrityError { _ = try vault.verify() }, "verify, truncated to \(length)")
                try expectIntact(vault, others, token: bystander, "others, truncated to \(length)")
                cases += 1
            }
            try raw.setSealed(row.sealed, forRecord: row.id)
        }
        #expect(cases == itemRow.sealed.count + tokenRow.sealed.count)
        try expectIntact(vault, others.merging(["victim": "the victim item"]) { $1 }, token: token, "restored")
        #expect(try vault.verify().authenticatedRecordCount == 7)  // 4 items, 2 tokens, the default pointer
    }

    @Test func flippingAnyByteOfASealedRecordIsAnIntegrityError() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        let key = SecretKey<String>("k")
        try vault.set("a secret worth protecting", for: key)
        let raw = try RawVaultFile(url)
        let record = try #require(try raw.records().first)
        for index in record.sealed.indices {
            var bytes = record.sealed
            bytes[index] ^= 0x01
            try raw.setSealed(bytes, forRecord: record.id)
            #expect(integrityError { _ = try vault.get(key) }, "byte \(index) of \(record.sealed.count)")
        }
        for length in [0, 1, 24, 39, 40, record.sealed.count - 1] {
            try raw.setSealed(Array(record.sealed.prefix(length)), forRecord: record.id)
            #expect(integrityError { _ = try vault.get(key) }, "truncated to \(length)")
        }
        try raw.setSealed(record.sealed + [0], forRecord: record.id)
        #expect(integrityError { _ = try vault.get(key) })
        #expect(integrityError { _ = try vault.verify() })
        try raw.setSealed(record.sealed, forRecord: record.id)
        #expect(try vault.get(key) == "a secret worth protecting")
        #expect(try vault.verify().authenticatedRecordCount == 1)
    }

    @Test func editingTheClearColumnsIsAnIntegrityError() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        let key = SecretKey<String>("k")
        try vault.set("v", for: key)
        let raw = try RawVaultFile(url)
        let record = try #require(try raw.records().first)
        try raw.execute("UPDATE records SET version = 9")
        #expect(integrityError { _ = try vault.get(key) })
        try raw.execute("UPDATE records SET version = ?", .integer(record.version))
        try raw.execute("UPDATE records SET policy = 0")  // claims whenUnlocked
        #expect(integrityError { _ = try vault.get(key) })
        try raw.execute("UPDATE records SET policy = ?", .integer(record.policy))
        try raw.execute(
            "UPDATE records SET record_id = ? WHERE record_id = ?", .blob([UInt8](repeating: 7, count: 16)),
            .blob(record.id))
        #expect(integrityError { _ = try vault.get(key) })
        try raw.execute(
            "UPDATE records SET record_id = ? WHERE record_id = ?", .blob(record.id),
            .blob([UInt8](repeating: 7, count: 16)))
        #expect(try vault.get(key) == "v")
    }

    @Test func swappingTwoRecordsIsAnIntegrityError() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        let first = SecretKey<String>("first")
        let second = SecretKey<String>("second")
        try vault.set("one", for: first)
        try vault.set("two", for: second)
        let raw = try RawVaultFile(url)
        let records = try raw.records()
        try raw.setSealed(records[1].sealed, forRecord: records[0].id)
        try raw.setSealed(records[0].sealed, forRecord: records[1].id)
        #expect(integrityError { _ = try vault.get(first) })
        #expect(integrityError { _ = try vault.get(second) })
        // Swapping the look-up tags (so each name points at the other's row) is caught too.
        try raw.setSealed(records[0].sealed, forRecord: records[0].id)
        try raw.setSealed(records[1].sealed, forRecord: records[1].id)
        try raw.execute("UPDATE records SET lookup = NULL")
        try raw.execute(
            "UPDATE records SET lookup = ? WHERE record_id = ?", .blob(records[1].lookup!), .blob(records[0].id))
        try raw.execute(
            "UPDATE records SET lookup = ? WHERE record_id = ?", .blob(records[0].lookup!), .blob(records[1].id))
        #expect(integrityError { _ = try vault.get(first) })
        #expect(integrityError { _ = try vault.verify() })
    }

    @Test func aRecordCopiedFromAnotherVaultIsAnIntegrityError() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory, name: "a.db")
        let (other, otherURL) = try TestVaults.onDisk(in: directory, name: "b.db")
        let key = SecretKey<String>("k")
        try vault.set("mine", for: key)
        try other.set("theirs", for: key)
        let mine = try #require(try RawVaultFile(url).records().first)
        try RawVaultFile(otherURL).setSealed(
            mine.sealed, forRecord: try #require(try RawVaultFile(otherURL).records().first).id)
        #expect(integrityError { _ = try other.get(key) })
    }

    /// Two vaults, each with an item of the same name: their rows exchanged in every way an attacker
    /// with both files can — sealed blobs, whole rows, one vault's record id in the other — and
    /// their key slots and headers exchanged. Every read of a moved row is a typed error; the rest
    /// of each vault reads on.
    @Test func recordsAndKeySlotsSwappedBetweenTwoVaultsAreTypedErrors() throws {
        let first = TemporaryDirectory()
        let second = TemporaryDirectory()
        let (vaultA, urlA, keyA) = try TestVaults.keyFileVault(in: first)
        let (vaultB, urlB, keyB) = try TestVaults.keyFileVault(in: second)
        let shared = SecretKey<String>("shared-name")
        try vaultA.set("A's value", for: shared)
        try vaultB.set("B's value", for: shared)
        let rawA = try RawVaultFile(urlA)
        let rawB = try RawVaultFile(urlB)
        let rowA = try #require(try rawA.records().first)
        let rowB = try #require(try rawB.records().first)
        try vaultA.set("A's bystander", for: SecretKey<String>("bystander"))
        try vaultB.set("B's bystander", for: SecretKey<String>("bystander"))
        func put(_ row: RawVaultFile.Record, into raw: RawVaultFile, replacing old: [UInt8]) throws {
            try raw.execute(
                "UPDATE records SET record_id = ?, lookup = ?, domain = ?, policy = ?, version = ?, sealed = ? WHERE record_id = ?",
                .blob(row.id), .blob(row.lookup!), .blob(row.domain), .integer(row.policy), .integer(row.version),
                .blob(row.sealed), .blob(old))
        }

        // 1. The sealed blobs exchanged, each vault keeping its own record id and look-up tag.
        try rawA.setSealed(rowB.sealed, forRecord: rowA.id)
        try rawB.setSealed(rowA.sealed, forRecord: rowB.id)
        #expect(integrityError { _ = try vaultA.get(shared) })
        #expect(integrityError { _ = try vaultB.get(shared) })
        #expect(integrityError { _ = try vaultA.verify() })
        #expect(try vaultA.get(SecretKey<String>("bystander")) == "A's bystander")
        #expect(try vaultB.get(SecretKey<String>("bystander")) == "B's bystander")

        // 2. The same record id in both: B's row carries A's id and A's blob under B's look-up tag.
        try rawA.setSealed(rowA.sealed, forRecord: rowA.id)
        try rawB.execute(
            "UPDATE records SET record_id = ?, sealed = ? WHERE record_id = ?", .blob(rowA.id), .blob(rowA.sealed),
            .blob(rowB.id))
        #expect(try vaultA.get(shared) == "A's value")
        #expect(integrityError { _ = try vaultB.get(shared) })
        #expect(integrityError { _ = try vaultB.verify() })
        #expect(try vaultB.get(SecretKey<String>("bystander")) == "B's bystander")

        // 3. Whole rows exchanged (id, look-up tag, version, blob): the foreign row is not found under
        // this vault's keyed look-up tag, never read as this vault's item; verify reports it.
        try put(rowA, into: rawB, replacing: rowA.id)
        try put(rowB, into: rawA, replacing: rowA.id)
        for (vault, mine) in [(vaultA, "A's value"), (vaultB, "B's value")] {
            do {
                let read = try vault.get(shared)
                #expect(read == nil || read == mine, "a foreign row was read as \(read ?? "nil")")
                #expect(read == nil)
            } catch {
                #expect(Self.isIntegrity(error), "\(error)")
            }
            #expect(integrityError { _ = try vault.verify() })
        }
        #expect(try vaultA.get(SecretKey<String>("bystander")) == "A's bystander")
        #expect(try vaultB.get(SecretKey<String>("bystander")) == "B's bystander")
        try put(rowA, into: rawA, replacing: rowB.id)
        try put(rowB, into: rawB, replacing: rowA.id)
        #expect(try vaultA.get(shared) == "A's value")
        #expect(try vaultB.verify().authenticatedRecordCount == 2)

        // 4. Key slots exchanged: neither key file opens the other's vault.
        let slotA = try #require(try rawA.keySlots().first)
        let slotB = try #require(try rawB.keySlots().first)
        func setSlot(_ slot: RawVaultFile.KeySlot, in raw: RawVaultFile) throws {
            try raw.execute(
                "UPDATE key_slots SET slot_id = ?, salt = ?, wrapped = ?, public_key = ?, sealed_grant = ?",
                .blob(slot.id), .blob(slot.salt), .blob(slot.wrapped), .blob(slot.publicKey), .blob(slot.grant))
        }
        try setSlot(slotB, in: rawA)
        try setSlot(slotA, in: rawB)
        for (url, keys) in [(urlA, [keyA, keyB]), (urlB, [keyA, keyB])] {
            for key in keys {
                #expect(throws: VaultError.invalidCredentials) { try Vault.open(at: url, unlock: .keyFile(key)) }
            }
        }
        // 5. Header and slots transplanted together: B's key file opens A's file with B's master key,
        // and then every record of A is an integrity error, never B's data or a crash.
        let vaultIDB = try #require(try rawB.blob("SELECT vault_id FROM vault_header"))
        let vaultIDA = try #require(try rawA.blob("SELECT vault_id FROM vault_header"))
        try rawA.execute("UPDATE vault_header SET vault_id = ?", .blob(vaultIDB))
        let hybrid = try Vault.open(at: urlA, unlock: .keyFile(keyB))
        #expect(try hybrid.get(shared) == nil)  // A's look-up tags are keyed under A's master key
        #expect(integrityError { _ = try hybrid.verify() })
        try rawA.execute("UPDATE vault_header SET vault_id = ?", .blob(vaultIDA))
        try setSlot(slotA, in: rawA)
        try setSlot(slotB, in: rawB)
        #expect(try Vault.open(at: urlA, unlock: .keyFile(keyA)).get(shared) == "A's value")
        #expect(try Vault.open(at: urlB, unlock: .keyFile(keyB)).get(shared) == "B's value")
    }

    @Test func verifyDetectsADeletedRow() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        for index in 0..<3 { try vault.set(index, for: SecretKey<Int>("k\(index)")) }
        let raw = try RawVaultFile(url)
        let victim = try #require(try raw.records().first)
        try raw.delete(victim)
        #expect(integrityError { _ = try vault.verify() })
        // Putting it back exactly as it was restores a consistent vault.
        try raw.insert(victim)
        #expect(try vault.verify().recordCount == 3)
    }

    /// A vault of three pages of records: a row deleted from, or damaged in, the last page is caught
    /// as surely as one in the first.
    @Test func verifyDetectsTamperingInTheLastPageOfALargeVault() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        try vault.insertTokenRecordsForBenchmarking(
            (0..<(2 * Vault.rowsPerPage + 52)).map {
                BenchmarkTokenRecord(id: "t\($0)", metadata: [1], terms: [], secret: [2])
            },
            policy: .default)
        let raw = try RawVaultFile(url)
        let victim = try #require(try raw.records().last)
        try raw.delete(victim)
        #expect(integrityError { _ = try vault.verify() })
        try raw.insert(victim)
        let report = try vault.verify()
        #expect(report.authenticatedRecordCount == 2 * Vault.rowsPerPage + 52)

        // The digest would catch the damaged row too; the error must name what failed first.
        var damaged = victim.sealed
        damaged[damaged.count / 2] ^= 1
        try raw.setSealed(damaged, forRecord: victim.id)
        #expect(throws: VaultError.integrity("1 of \(report.recordCount) records failed authentication")) {
            try vault.verify()
        }
    }

    @Test func verifyDetectsARowRolledBackToAnOlderVersion() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        let key = SecretKey<String>("refresh-token")
        try vault.set("old token", for: key)
        let raw = try RawVaultFile(url)
        let old = try #require(try raw.records().first)
        try vault.set("rotated token", for: key)
        try raw.execute(
            "UPDATE records SET version = ?, sealed = ? WHERE record_id = ?", .integer(old.version), .blob(old.sealed),
            .blob(old.id))
        // A single read cannot tell an old authentic row from the current one; verify can.
        #expect(try vault.get(key) == "old token")
        #expect(integrityError { _ = try vault.verify() })
    }

    @Test func aTamperedIntegrityDigestStopsWritesAndVerify() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        try vault.set("v", for: SecretKey<String>("k"))
        let raw = try RawVaultFile(url)
        var digest = try #require(try raw.sealedDigest())
        digest[30] ^= 1
        try raw.setSealedDigest(digest)
        #expect(integrityError { try vault.set("w", for: SecretKey<String>("k")) })
        #expect(integrityError { _ = try vault.verify() })
        #expect(try vault.get(SecretKey<String>("k")) == "v")
        try raw.deleteSealedDigest()
        #expect(integrityError { _ = try vault.verify() })
    }

    @Test func aMissingHeaderIsAnIntegrityError() throws {
        let (_, url) = try TestVaults.onDisk(in: directory)
        try RawVaultFile(url).execute("DELETE FROM vault_header")
        #expect(integrityError { _ = try Vault.open(at: url, unlock: VaultKind.unlock) })
    }
}
