import Foundation
import TestSupport
import Testing
import TokenVault

/// The folder layout of a `pass` store, on real folders (no encryption: that is gpg's).
@Suite struct PasswordStoreTests {
    let directory = TemporaryDirectory()

    func touch(_ path: String, _ text: String = "") throws {
        let file = directory.file(path)
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }

    @Test func entriesAreTheGPGFilesPathsWithoutHiddenOnes() throws {
        for path in [
            "a.gpg", "work/github.gpg", "work/deep/x.gpg", ".git/objects/y.gpg", "work/.hidden.gpg", "notes.txt",
        ] {
            try touch(path)
        }
        let store = PasswordStore(root: directory.url)
        #expect(try store.entryNames() == ["a", "work/deep/x", "work/github"])
        #expect(try store.file(for: "work/github") == directory.url.appendingPathComponent("work/github.gpg"))
        #expect(throws: SecretTransferError.noPasswordStore(directory.file("none").path)) {
            try PasswordStore(root: directory.file("none")).entryNames()
        }
    }

    @Test func namesThatAreNoSafePathAreRefused() {
        let store = PasswordStore(root: directory.url)
        for name in ["../escape", "a//b", "/abs", "a/./b", ".hidden", "x/"] {
            #expect(throws: SecretTransferError.invalidName(name)) { try store.file(for: name) }
        }
    }

    @Test func recipientsComeFromTheNearestGPGID() throws {
        try touch(".gpg-id", "alice@example.com\n# a comment\nBOB1234 # trailing\n\n")
        try touch("team/.gpg-id", "team@example.com\n")
        let store = PasswordStore(root: directory.url)
        #expect(try store.recipients(for: "x") == ["alice@example.com", "BOB1234"])
        #expect(try store.recipients(for: "team/deep/y") == ["team@example.com"])
        let bare = TemporaryDirectory()
        #expect(throws: SecretTransferError.noRecipients(bare.url.standardizedFileURL.path)) {
            try PasswordStore(root: bare.url).recipients(for: "x")
        }
    }

    @Test func theFirstLineIsThePasswordAndTheStandardStoreFollowsPass() {
        let (value, more) = PasswordStore.password(in: Data("pw\nlogin: me\n".utf8))
        #expect(value == Data("pw".utf8) && more)
        #expect(PasswordStore.password(in: Data("pw\n".utf8)) == (Data("pw".utf8), false))
        #expect(PasswordStore.password(in: PasswordStore.plaintext(of: Data("v".utf8))).value == Data("v".utf8))
        let home = URL(fileURLWithPath: "/home/u")
        #expect(PasswordStore.standard(environment: [:], home: home).root.path == "/home/u/.password-store")
        #expect(
            PasswordStore.standard(environment: ["PASSWORD_STORE_DIR": "/s"], home: home).root.path == "/s")
    }
}
