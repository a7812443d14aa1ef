import Foundation
import TestSupport
import Testing
import TokenVault

/// Damage to the SQLite file's structure (b-tree and index pages), not to a sealed record: a
/// flipped byte must never lose or change an item while `verify()` passes.
@Suite struct VaultStructureTests {
    let directory = TemporaryDirectory()

    /// A closed key-file vault (no Argon2 per open) with enough key-value items and tokens to
    /// spread the `records` table and its indexes over several pages, checkpointed into one file.
    struct SmallVault {
        let url: URL
        let keyFile: URL
        let items: [String: String]
        let tokens: [Token]
    }

    func smallVault() throws -> SmallVault {
        var items: [String: String] = [:]
        var tokens: [Token] = []
        let (url, keyFile): (URL, URL)
        do {
            let (vault, vaultURL, vaultKeyFile) = try TestVaults.keyFileVault(in: directory)
            (url, keyFile) = (vaultURL, vaultKeyFile)
            for index in 0..<24 {
                let value = "value \(index) " + String(repeating: "v", count: 80)
                items["item-\(index)"] = value
                try vault.set(value, for: SecretKey<String>("item-\(index)"))
            }
            let storage = try VaultTokenStorage(vault: vault)
            for index in 0..<3 {
                let token = TestTokens.token(subject: "user-\(index)@example.com")
                tokens.append(token)
                _ = try storage.add(token: token, metadata: Token.Metadata(token: token, tags: [:]), security: [])
            }
        }  // the last connection closing checkpoints the log into the file
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        return SmallVault(url: url, keyFile: keyFile, items: items, tokens: tokens)
    }

    /// Writes `bytes` as a private (0600) vault file, so its permissions are never what is refused.
    func writeCopy(_ bytes: Data, named name: String) -> URL {
        let url = directory.file(name)
        #expect(
            FileManager.default.createFile(atPath: url.path, contents: bytes, attributes: [.posixPermissions: 0o600]))
        return url
    }

    func removeCopy(_ url: URL) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    }

    /// What a damaged copy did: refused by `open` or `verify()`, or read back completely.
    enum Outcome: Equatable {
        case refused
        case intact
    }

    /// Opens `url`; when both `open` and `verify()` succeed, every item and token must read back
    /// exactly as stored.
    func check(_ url: URL, against vault: SmallVault, _ comment: Comment) -> Outcome {
        let opened: Vault
        do {
            opened = try Vault.open(at: url, unlock: .keyFile(vault.keyFile))
            _ = try opened.verify()
        } catch {
            #expect(error is VaultError, "\(comment): \(error)")
            return .refused
        }
        do {
            for (name, value) in vault.items {
                #expect(try opened.get(SecretKey<String>(name)) == value, "\(comment): \(name) lost or changed")
            }
            let storage = try VaultTokenStorage(vault: opened)
            #expect(try Set(storage.allIDs()) == Set(vault.tokens.map(\.id)), "\(comment): token list")
            for token in vault.tokens {
                let stored = try storage.token(id: token.id, prompt: nil, authenticationContext: nil)
                #expect(stored == token, "\(comment): token lost or changed")
            }
        } catch {
            Issue.record("\(comment): verify() passed but a read failed: \(error)")
        }
        return .intact
    }

    /// The bytes flipped in each page: the first (the page header, or the file header on page 1), a
    /// spread through the page, and the last (where the first cell of a leaf page ends: in an index,
    /// the row id the entry points to). 53 per page whatever the page size (a step of 97 bytes in a
    /// 4 KiB page), so larger pages do not multiply the cases.
    static func offsets(pageSize: Int) -> [Int] {
        Array(stride(from: 0, to: pageSize, by: pageSize / 42)) + [
            1, 3, 5, 7, 8, 9, 10, 11, pageSize - 2, pageSize - 1,
        ]
    }

    @Test func aFlippedByteInAnyPageIsReadBackIntactOrReported() throws {
        let vault = try smallVault()
        let pageSize = try #require(try RawVaultFile(vault.url).integer("PRAGMA page_size")).asInt
        let original = try Data(contentsOf: vault.url)
        let pageCount = original.count / pageSize
        #expect(pageCount >= 6 && original.count == pageCount * pageSize, "\(original.count) bytes")
        var refused = 0
        var cases = 0
        for page in 0..<pageCount {
            for offset in Self.offsets(pageSize: pageSize) {
                var damaged = original
                damaged[page * pageSize + offset] ^= 0x5a
                let copy = writeCopy(damaged, named: "flipped-\(page)-\(offset).db")
                if check(copy, against: vault, "page \(page + 1) byte \(offset)") == .refused { refused += 1 }
                removeCopy(copy)
                cases += 1
            }
        }
        #expect(refused > 0 && refused < cases, "\(refused) of \(cases) damaged copies refused")
        print()
    }

    /// The case that passed unnoticed before the structural check: the lookup index's entry for an
    /// item points to a row id that does not exist, so the item reads as missing, while a full scan
    /// of the table (and so the digest) still sees every row.
    @Test func aDamagedLookupIndexIsAnIntegrityErrorNotAMissingItem() throws {
        let vault = try smallVault()
        let raw = try RawVaultFile(vault.url)
        let pageSize = try #require(try raw.integer("PRAGMA page_size")).asInt
        let indexRoot = try #require(
            try raw.integer("SELECT rootpage FROM sqlite_schema WHERE tbl_name = 'records' AND sql IS NULL")
        ).asInt
        var damaged = try Data(contentsOf: vault.url)
        // The index's root page, last byte: the end of its first cell's record id.
        damaged[indexRoot * pageSize - 1] ^= 0x5a
        let copy = writeCopy(damaged, named: "index-flipped.db")
        let opened = try Vault.open(at: copy, unlock: .keyFile(vault.keyFile))
        var error: VaultError?
        do { _ = try opened.verify() } catch let caught as VaultError { error = caught }
        guard case .integrity(let detail) = error else {
            Issue.record("verify() did not report the damaged index: \(String(describing: error))")
            return
        }
        #expect(detail.contains("database structure is damaged"))
        for (_, value) in vault.items { #expect(!detail.contains(value)) }
    }
}

extension Int64 {
    fileprivate var asInt: Int { Int(self) }
}
