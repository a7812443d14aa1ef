import Foundation
import TestSupport
import Testing
import TokenVault

@Suite struct VaultFileTests {
    let directory = TemporaryDirectory()

    @Test func createMakes0600FileIn0700DirectoriesAndRefusesToOverwrite() throws {
        let url = directory.file("nested/deeper/vault.db")
        let vault = try Vault.create(at: url, unlock: VaultKind.unlock, keyDerivation: TestVaults.fastKeyDerivation)
        try vault.set("v", for: SecretKey<String>("k"))
        #expect(try fileMode(url) == 0o600)
        #expect(try fileMode(directory.file("nested/deeper")) == 0o700)
        #expect(try fileMode(directory.file("nested")) == 0o700)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            #expect(try fileMode(URL(fileURLWithPath: url.path + suffix)) == 0o600)
        }
        #expect(throws: VaultError.alreadyExists(url.path)) {
            try Vault.create(at: url, unlock: VaultKind.unlock, keyDerivation: TestVaults.fastKeyDerivation)
        }
        #expect(try vault.get(SecretKey<String>("k")) == "v")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.file("nested/deeper").path)
            .filter { $0.contains("creating") }
        #expect(leftovers.isEmpty)
    }

    /// While a vault is open its write-ahead log and shared-memory files exist (the creation test
    /// checks them only if present) and are 0600 like the vault; key files and their new folders
    /// are 0600 / 0700.
    @Test func sideFilesKeyFilesAndTheirFoldersArePrivate() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        try vault.set("v", for: SecretKey<String>("k"))
        let reopened = try Vault.open(at: url, unlock: VaultKind.unlock)
        try reopened.set("w", for: SecretKey<String>("k2"))
        for suffix in ["-wal", "-shm"] {
            let side = URL(fileURLWithPath: url.path + suffix)
            #expect(FileManager.default.fileExists(atPath: side.path), "no \(suffix) while open")
            #expect(try fileMode(side) == 0o600, "\(suffix)")
        }
        let keyFile = directory.file("keys/nested/vault.key")
        try KeyFile.generate(at: keyFile)
        #expect(try fileMode(keyFile) == 0o600)
        #expect(try fileMode(directory.file("keys/nested")) == 0o700)
        #expect(try fileMode(directory.file("keys")) == 0o700)
        withExtendedLifetime(vault) {}
    }

    @Test func reopenAfterCloseKeepsEverything() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        try vault.set(["a", "b"], for: SecretKey<[String]>("list"))
        let generation = try vault.verify().generation
        _ = consume vault
        let reopened = try Vault.open(at: url, unlock: VaultKind.unlock)
        #expect(try reopened.get(SecretKey<[String]>("list")) == ["a", "b"])
        #expect(try reopened.verify().generation == generation)
    }

    @Test func openingAMissingFileIsNotFoundAndCreatesNothing() {
        let url = directory.file("absent.db")
        #expect(throws: VaultError.notFound(url.path)) { try Vault.open(at: url, unlock: VaultKind.unlock) }
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func wrongPassphraseIsInvalidCredentials() throws {
        let (_, url) = try TestVaults.onDisk(in: directory)
        #expect(throws: VaultError.invalidCredentials) { try Vault.open(at: url, unlock: .passphrase("wrong")) }
        #expect(throws: VaultError.invalidCredentials) { try Vault.open(at: url, unlock: .passphrase("")) }
        let keyFile = directory.file("other.key")
        try KeyFile.generate(at: keyFile)
        #expect(throws: VaultError.invalidCredentials) { try Vault.open(at: url, unlock: .keyFile(keyFile)) }
    }

    @Test func emptyPassphraseIsRefusedAtCreate() {
        #expect(throws: VaultError.invalidArgument("the passphrase is empty")) {
            try Vault.create(
                at: directory.file("v.db"), unlock: .passphrase(""), keyDerivation: TestVaults.fastKeyDerivation)
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("v.db").path))
    }

    @Test func passphraseChangePersistsAcrossReopen() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        try vault.set("data", for: SecretKey<String>("k"))
        try vault.changeUnlock(from: VaultKind.unlock, to: .passphrase("second passphrase"))
        _ = consume vault
        #expect(throws: VaultError.invalidCredentials) { try Vault.open(at: url, unlock: VaultKind.unlock) }
        let reopened = try Vault.open(at: url, unlock: .passphrase("second passphrase"))
        #expect(try reopened.get(SecretKey<String>("k")) == "data")
    }

    @Test func textPassphrasesAreNormalisedToNFC() throws {
        let composed = "caf\u{e9}"  // é as one scalar
        let decomposed = "cafe\u{301}"  // e + combining acute
        let url = directory.file("v.db")
        _ = try Vault.create(
            at: url, unlock: .passphrase(Passphrase(composed)), keyDerivation: TestVaults.fastKeyDerivation)
        _ = try Vault.open(at: url, unlock: .passphrase(Passphrase(decomposed)))
        #expect(throws: VaultError.invalidCredentials) {
            try Vault.open(at: url, unlock: .passphrase(Passphrase(bytes: Array(decomposed.utf8))))
        }
    }

    @Test func keyFileUnlockAndItsErrors() throws {
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        try vault.set("v", for: SecretKey<String>("k"))
        #expect(try fileMode(keyFile) == 0o600)
        #expect(try Vault.open(at: url, unlock: .keyFile(keyFile)).get(SecretKey<String>("k")) == "v")
        #expect(throws: VaultError.alreadyExists(keyFile.path)) { try KeyFile.generate(at: keyFile) }

        let missing = directory.file("missing.key")
        #expect(throws: VaultError.invalidKeyFile("no file at \(missing.path)")) {
            try Vault.open(at: url, unlock: .keyFile(missing))
        }
        let short = directory.file("short.key")
        try Data(repeating: 1, count: 31).write(to: short)
        try setFileMode(0o600, short)  // a loose mode would be refused before the length is checked
        #expect(throws: VaultError.invalidKeyFile("shorter than 32 bytes: \(short.path)")) {
            try Vault.open(at: url, unlock: .keyFile(short))
        }
        #expect(throws: VaultError.invalidCredentials) { try Vault.open(at: url, unlock: VaultKind.unlock) }
    }

    @Test func compositeUnlockNeedsBothParts() throws {
        let keyFile = directory.file("k.key")
        try KeyFile.generate(at: keyFile)
        let url = directory.file("v.db")
        let both = VaultUnlock.composite(passphrase: TestVaults.passphrase, keyFile: keyFile)
        _ = try Vault.create(at: url, unlock: both, keyDerivation: TestVaults.fastKeyDerivation)
        #expect(throws: VaultError.invalidCredentials) { try Vault.open(at: url, unlock: VaultKind.unlock) }
        #expect(throws: VaultError.invalidCredentials) { try Vault.open(at: url, unlock: .keyFile(keyFile)) }
        let otherKey = directory.file("other.key")
        try KeyFile.generate(at: otherKey)
        #expect(throws: VaultError.invalidCredentials) {
            try Vault.open(at: url, unlock: .composite(passphrase: TestVaults.passphrase, keyFile: otherKey))
        }
        #expect(throws: VaultError.invalidCredentials) {
            try Vault.open(at: url, unlock: .composite(passphrase: "wrong", keyFile: keyFile))
        }
        _ = try Vault.open(at: url, unlock: both)
    }

    @Test func keyDerivationOutsideTheBoundsIsRefusedAtCreate() {
        for costs in [
            KeyDerivation.custom(opsLimit: 1, memLimitBytes: 64 << 20), .custom(opsLimit: 2, memLimitBytes: 8 << 20),
            .custom(opsLimit: 17, memLimitBytes: 64 << 20), .custom(opsLimit: 2, memLimitBytes: 2 << 30),
        ] {
            #expect(throws: VaultError.self) {
                try Vault.create(at: directory.file("v.db"), unlock: VaultKind.unlock, keyDerivation: costs)
            }
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("v.db").path))
    }

    @Test func editedKdfParametersAreRefusedOrFailAuthentication() throws {
        let (_, url) = try TestVaults.onDisk(in: directory)
        let raw = try RawVaultFile(url)
        let original = try #require(try raw.integer("SELECT mem_limit FROM key_slots"))
        // Cheap and huge values are refused before Argon2 runs.
        for (ops, mem) in [(1, original), (2, Int64(8192)), (1000, original), (2, Int64(64) << 30)] {
            try raw.execute("UPDATE key_slots SET ops_limit = ?, mem_limit = ?", .integer(Int64(ops)), .integer(mem))
            #expect(throws: VaultError.self) { try Vault.open(at: url, unlock: VaultKind.unlock) }
            do {
                _ = try Vault.open(at: url, unlock: VaultKind.unlock)
            } catch let error as VaultError {
                guard case .unsupportedFormat = error else {
                    Issue.record("expected unsupportedFormat for ops \(ops) mem \(mem), got \(error)")
                    continue
                }
            }
        }
        // In-bounds edits change the derived key: the slot does not open.
        try raw.execute("UPDATE key_slots SET ops_limit = 3, mem_limit = ?", .integer(original))
        #expect(throws: VaultError.invalidCredentials) { try Vault.open(at: url, unlock: VaultKind.unlock) }
        try raw.execute("UPDATE key_slots SET ops_limit = 2, mem_limit = ?", .integer(original))
        _ = try Vault.open(at: url, unlock: VaultKind.unlock)
    }

    /// Found by FuzzKeySlot: a key-file slot's costs are not bounds-checked (no Argon2 runs), and a
    /// negative one trapped while building the slot's associated data.
    @Test func negativeCostsOnAKeyFileSlotFailAuthenticationInsteadOfTrapping() throws {
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        _ = consume vault
        let raw = try RawVaultFile(url)
        for (ops, mem) in [(Int64(-1), Int64(0)), (0, -1), (.min, .min)] {
            try raw.execute("UPDATE key_slots SET ops_limit = ?, mem_limit = ?", .integer(ops), .integer(mem))
            #expect(throws: VaultError.invalidCredentials) { try Vault.open(at: url, unlock: .keyFile(keyFile)) }
        }
        try raw.execute("UPDATE key_slots SET ops_limit = 0, mem_limit = 0")
        _ = try Vault.open(at: url, unlock: .keyFile(keyFile))
    }

    @Test func aTamperedSlotIsInvalidCredentialsLikeAWrongPassphrase() throws {
        let (_, url) = try TestVaults.onDisk(in: directory)
        let raw = try RawVaultFile(url)
        let wrapped = try #require(try raw.blob("SELECT wrapped FROM key_slots"))
        for index in [0, 24, wrapped.count / 2, wrapped.count - 1] {
            var bytes = wrapped
            bytes[index] ^= 0x80
            try raw.execute("UPDATE key_slots SET wrapped = ?", .blob(bytes))
            #expect(throws: VaultError.invalidCredentials) { try Vault.open(at: url, unlock: VaultKind.unlock) }
        }
        try raw.execute(
            "UPDATE key_slots SET salt = ?, wrapped = ?", .blob([UInt8](repeating: 0, count: 16)), .blob(wrapped))
        #expect(throws: VaultError.invalidCredentials) { try Vault.open(at: url, unlock: VaultKind.unlock) }
    }

    /// Truncates one blob column of one key slot to every length short of its own, runs `check`,
    /// and puts the column back; returns the number of cases.
    func forEachTruncation(
        of slot: RawVaultFile.KeySlot, columns: [String] = RawVaultFile.keySlotBlobColumns, in raw: RawVaultFile,
        lengths: ((Int) -> [Int])? = nil, _ check: (String, Int) throws -> Void
    ) throws -> Int {
        var cases = 0
        for column in columns {
            let original = try raw.keySlotBlob(column, ofSlot: slot.id)
            for length in lengths?(original.count) ?? Array(0..<original.count) {
                let truncated = Array(original.prefix(length))
                try raw.execute(
                    "UPDATE key_slots SET \(column) = ? WHERE slot_id = ?", .blob(truncated), .blob(slot.id))
                let current = column == "slot_id" ? truncated : slot.id
                try check(column, length)
                try raw.execute(
                    "UPDATE key_slots SET \(column) = ? WHERE slot_id = ?", .blob(original), .blob(current))
                cases += 1
            }
        }
        return cases
    }

    /// Every blob of a key slot (id, salt, wrapped private key, public key, grant) cut at every offset: the slot does not
    /// open (`invalidCredentials`, as for any tampered slot), nothing crashes, and the vault's other
    /// slot still opens it. Both slots are tried as the damaged one, so the damaged slot comes first
    /// in the vault's slot order in one of the two rounds.
    @Test func aKeySlotTruncatedAtEveryOffsetDoesNotOpenAndAnIntactSlotStillDoes() throws {
        let (vault, url, firstKey) = try TestVaults.keyFileVault(in: directory)
        try vault.set("v", for: SecretKey<String>("k"))
        let raw = try RawVaultFile(url)
        let firstID = try #require(try raw.keySlots().first?.id)
        let secondKey = directory.file("second.key")
        try KeyFile.generate(at: secondKey)
        try vault.addUnlock(.keyFile(secondKey))
        let slots = try raw.keySlots()
        #expect(slots.count == 2)
        var cases = 0
        for slot in slots {
            let (own, other) = slot.id == firstID ? (firstKey, secondKey) : (secondKey, firstKey)
            cases += try forEachTruncation(of: slot, in: raw) { column, length in
                #expect(throws: VaultError.invalidCredentials, "\(column) cut to \(length)") {
                    try Vault.open(at: url, unlock: .keyFile(own))
                }
                #expect(throws: VaultError.invalidCredentials, "unlock, \(column) cut to \(length)") {
                    try vault.unlock(.keyFile(own))
                }
                let opened = try Vault.open(at: url, unlock: .keyFile(other))
                #expect(try opened.get(SecretKey<String>("k")) == "v", "\(column) cut to \(length)")
            }
        }
        let expected = slots.reduce(0) {
            $0 + 16 + $1.salt.count + $1.wrapped.count + $1.publicKey.count + $1.grant.count
        }
        #expect(cases == expected)
        #expect(try Vault.open(at: url, unlock: .keyFile(firstKey)).get(SecretKey<String>("k")) == "v")
    }

    /// The same for passphrase slots, whose salt goes to Argon2id: a cut salt used to surface as an
    /// `integrity` error from the crypto layer and stopped the search before the intact slot.
    /// Salt and slot id at every offset; the wrapped private key, public key and grant at their
    /// boundaries (each case runs Argon2).
    @Test func aPassphraseSlotTruncatedAtEveryOffsetDoesNotOpenAndAnIntactSlotStillDoes() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        try vault.set("v", for: SecretKey<String>("k"))
        let raw = try RawVaultFile(url)
        let firstID = try #require(try raw.keySlots().first?.id)
        let second: Passphrase = "a second passphrase"
        try vault.addUnlock(.passphrase(second), keyDerivation: TestVaults.fastKeyDerivation)
        let slots = try raw.keySlots()
        var cases = 0
        for slot in slots {
            let (own, other) = slot.id == firstID ? (TestVaults.passphrase, second) : (second, TestVaults.passphrase)
            cases += try forEachTruncation(
                of: slot, in: raw,
                lengths: { count in
                    count > 16
                        ? Array(Set([0, 1, 23, 24, 39, 40, count / 2, count - 1].filter { $0 < count })).sorted()
                        : Array(0..<count)
                }
            ) { column, length in
                #expect(throws: VaultError.invalidCredentials, "\(column) cut to \(length)") {
                    try Vault.open(at: url, unlock: .passphrase(own))
                }
                let opened = try Vault.open(at: url, unlock: .passphrase(other))
                #expect(try opened.get(SecretKey<String>("k")) == "v", "\(column) cut to \(length)")
            }
        }
        // Slot id and salt at every offset, 8 cuts of the wrapped key and the grant, 6 of the
        // 32-byte public key.
        #expect(cases == 2 * (16 + 16 + 8 + 6 + 8))
    }

    /// The header's vault id cut at every offset: `integrity` (a damaged header), never a crash.
    @Test func aTruncatedVaultIDIsAnIntegrityError() throws {
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        try vault.set("v", for: SecretKey<String>("k"))
        let raw = try RawVaultFile(url)
        let vaultID = try #require(try raw.blob("SELECT vault_id FROM vault_header"))
        #expect(vaultID.count == 16)
        for length in 0..<vaultID.count {
            try raw.execute("UPDATE vault_header SET vault_id = ?", .blob(Array(vaultID.prefix(length))))
            #expect(throws: VaultError.integrity("the vault header is malformed"), "cut to \(length)") {
                try Vault.open(at: url, unlock: .keyFile(keyFile))
            }
        }
        try raw.execute("UPDATE vault_header SET vault_id = ?", .blob(vaultID))
        #expect(try Vault.open(at: url, unlock: .keyFile(keyFile)).get(SecretKey<String>("k")) == "v")
    }

    @Test func aNewerFormatIsRefused() throws {
        let (_, url) = try TestVaults.onDisk(in: directory)
        try RawVaultFile(url).execute("UPDATE vault_header SET format_version = 6")
        #expect(
            throws: VaultError.unsupportedFormat(
                "format version 6 is newer than this library supports (5); upgrade TokenVault")
        ) { try Vault.open(at: url, unlock: VaultKind.unlock) }
    }

    @Test func garbageAndForeignFilesAreRefusedAndLeftUnchanged() throws {
        let garbage = directory.file("garbage.db")
        try Data((0..<8192).map { UInt8($0 % 253) }).write(to: garbage)
        try setFileMode(0o600, garbage)  // private, so the format is what is refused
        #expect(throws: VaultError.unsupportedFormat("the file is not a TokenVault vault")) {
            try Vault.open(at: garbage, unlock: VaultKind.unlock)
        }
        let empty = directory.file("empty.db")
        try Data().write(to: empty)
        try setFileMode(0o600, empty)
        #expect(throws: VaultError.unsupportedFormat("the file is not a TokenVault vault")) {
            try Vault.open(at: empty, unlock: VaultKind.unlock)
        }
        // Another application's SQLite database: refused, and its journal mode is not switched.
        let foreign = directory.file("foreign.db")
        _ = try RawVaultFile.create(foreign, schema: "CREATE TABLE notes (body TEXT)")
        let before = try Data(contentsOf: foreign)
        #expect(throws: VaultError.unsupportedFormat("the file is not a TokenVault vault")) {
            try Vault.open(at: foreign, unlock: VaultKind.unlock)
        }
        #expect(try Data(contentsOf: foreign) == before)
    }

    @Test func truncatedFilesGiveAClearErrorNeverACrash() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        for index in 0..<20 { try vault.set(String(repeating: "x", count: 500), for: SecretKey<String>("k\(index)")) }
        _ = consume vault
        let full = try Data(contentsOf: url)
        #expect(full.count > 8192)
        for length in [0, 1, 50, 99, 100, 512, 4095, 4096, 4097, 8192, full.count / 2, full.count - 1] {
            let copy = directory.file("truncated-\(length).db")
            try full.prefix(length).write(to: copy)
            try setFileMode(0o600, copy)
            // SQLite reads the missing end of a short last page as zeros: cutting only zeros (the
            // end of an empty table's page) leaves the content exactly as it was.
            let cutsOnlyZeros = full[length...].allSatisfy { $0 == 0 }
            do {
                let opened = try Vault.open(at: copy, unlock: VaultKind.unlock)
                _ = try opened.verify()
                if !cutsOnlyZeros {
                    Issue.record("a vault truncated to \(length) of \(full.count) bytes opened and verified")
                }
            } catch let error as VaultError {
                switch error {
                case .unsupportedFormat, .integrity, .invalidCredentials: break
                default: Issue.record("truncated to \(length): unexpected \(error)")
                }
            }
        }
    }

    @Test func noNameOrValueIsStoredInClear() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        let name = "github-personal-access-token"
        let value = "ghp_ThisIsTheSecretValue0123456789"
        try vault.set(value, for: SecretKey<String>(name))
        try vault.set(Data(value.utf8), for: SecretKey<Data>(name + "-data"))
        try vault.changeUnlock(from: VaultKind.unlock, to: .passphrase("another passphrase"))
        var inspected = 0
        for suffix in ["", "-wal", "-shm"] {
            guard let contents = FileManager.default.contents(atPath: url.path + suffix) else { continue }
            inspected += 1
            for needle in [
                name, value, "ThisIsTheSecret", "another passphrase", String(TestVaults.passphrase.description),
            ] {
                #expect(contents.range(of: Data(needle.utf8)) == nil, "\(needle) found in vault\(suffix)")
            }
            #expect(contents.range(of: Data(value.utf8).base64EncodedData()) == nil)
        }
        #expect(inspected >= 2)  // the database and its write-ahead log
    }

    @Test func aFullDiskRollsBackAndKeepsThePreviousState() throws {
        let (vault, url) = try TestVaults.onDisk(in: directory)
        try vault.set("before", for: SecretKey<String>("k"))
        let generation = try vault.verify().generation
        try vault.limitFileSizeForTesting(pages: try RawVaultFile(url).integer("PRAGMA page_count").map(Int.init) ?? 0)
        do {
            try vault.set(String(repeating: "y", count: 200_000), for: SecretKey<String>("big"))
            Issue.record("a write past the page limit succeeded")
        } catch let error as VaultError {
            guard case .storage(let message) = error else {
                Issue.record("expected a storage error, got \(error)")
                return
            }
            #expect(message.contains("disk is full"))
        }
        #expect(try vault.get(SecretKey<String>("k")) == "before")
        #expect(try vault.get(SecretKey<String>("big")) == nil)
        #expect(try vault.verify().generation == generation)
        _ = consume vault
        let reopened = try Vault.open(at: url, unlock: VaultKind.unlock)
        #expect(try reopened.get(SecretKey<String>("k")) == "before")
        #expect(try reopened.verify().recordCount == 1)
    }
}
