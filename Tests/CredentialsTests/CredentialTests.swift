import Foundation
import Locking
import TestSupport
import Testing
import TokenVault

/// The static API shares process-wide state, so these tests run one at a time, each on a fresh storage.
@Suite(.serialized, .credentialState) struct CredentialTests {
    let directory = TemporaryDirectory()
    let vault: Vault

    init() throws {
        vault = try TestVaults.keyFileVault(in: directory).0
        try Credential.use(vault)
        Credential.Security.standard = [.accessibility(.afterFirstUnlock)]
    }

    @Test func theFirstStoredBecomesDefaultAndNotifiesOnce() throws {
        let recorder = DefaultChangeRecorder()
        let first = try Credential.store(TestTokens.token(), tags: ["displayName": "First"])
        let second = try Credential.store(TestTokens.token())
        #expect(Credential.default === first)
        #expect(recorder.ids == [first.id])

        Credential.default = second
        Credential.default = second  // no change, no notification
        #expect(Credential.default === second)
        #expect(recorder.ids == [first.id, second.id])

        Credential.default = nil  // clears the default, keeps the token
        #expect(Credential.default == nil)
        #expect(Set(Credential.allIDs) == [first.id, second.id])
        #expect(recorder.ids == [first.id, second.id, nil])
    }

    @Test func removingTheDefaultLeavesNoDefault() throws {
        let recorder = DefaultChangeRecorder()
        let first = try Credential.store(TestTokens.token())
        let second = try Credential.store(TestTokens.token())
        try second.remove()  // not the default: no notification
        #expect(recorder.ids == [first.id])
        try first.remove()
        #expect(Credential.default == nil)  // no silent promotion
        #expect(recorder.ids == [first.id, nil])
        #expect(Credential.allIDs.isEmpty)
        #expect(throws: CredentialError.removed(first.id)) { try first.remove() }
        #expect(throws: CredentialError.removed(first.id)) { try first.setTags(["a": "b"]) }
        #expect(throws: CredentialError.removed(first.id)) { try Credential.setDefault(first) }
    }

    @Test func oneInstancePerIDFromEveryLookup() throws {
        let stored = try Credential.store(TestTokens.token(), tags: ["service": "purchase"])
        #expect(try Credential.with(id: stored.id) === stored)
        #expect(Credential.default === stored)
        #expect(try Credential.find(where: { $0.tags["service"] == "purchase" }).first === stored)
        // A fresh storage object over the same vault: instances are made anew, once.
        try Credential.use(vault)
        let loaded = try #require(try Credential.with(id: stored.id))
        #expect(loaded !== stored)
        #expect(loaded.token == stored.token)
        #expect(try Credential.with(id: stored.id) === loaded)
        #expect(try Credential.find(where: { _ in true }).first === loaded)
        #expect(try Credential.with(id: "unknown") == nil)
    }

    @Test func aCredentialNobodyHoldsIsReleasedAndMadeAgainByTheNextLookUp() throws {
        let token = TestTokens.token()
        weak var released: Credential?
        do {
            released = try Credential.store(token, tags: ["service": "purchase"])
        }
        #expect(released == nil)  // the process keeps no copy of a token nobody holds
        let again = try #require(try Credential.with(id: token.id))
        #expect(again.token == token)
        #expect(again.tags == ["service": "purchase"])
        #expect(try Credential.with(id: token.id) === again)
        #expect(Credential.default === again)
    }

    @Test func theInstanceTableStaysSmallWhileStoresDropTheirCredentials() throws {
        let held = try Credential.store(TestTokens.token())
        for _ in 0..<300 {
            try Credential.store(TestTokens.token())
        }
        // Released entries are swept out whenever the table doubles: 300 stores leave at most 64.
        #expect(Credential.registeredInstanceCountForTesting <= 64)
        #expect(try Credential.with(id: held.id) === held)
        #expect(Credential.allIDs.count == 301)
    }

    @Test func findSeesTagsAndIDTokenClaims() throws {
        try Credential.store(
            TestTokens.token(subject: "jane.doe@example.com", roles: ["user"]), tags: ["service": "purchase"])
        let admin = try Credential.store(TestTokens.token(subject: "admin@example.com", roles: ["admin", "user"]))
        #expect(
            try Credential.find(where: { $0.tags["service"] == "purchase" }).map(\.token.idToken?.subject) == [
                "jane.doe@example.com"
            ])
        #expect(try Credential.find { $0.subject == "jane.doe@example.com" }.count == 1)
        #expect(try Credential.find { ($0[.roles] as? [String])?.contains("admin") == true } == [admin])
        #expect(try Credential.find { $0.email == "nobody@example.com" }.isEmpty)
    }

    @Test func storingTheSameTokenTwiceIsAnErrorAndTagsPersist() throws {
        let token = TestTokens.token()
        let credential = try Credential.store(token, tags: ["displayName": "My User"])
        #expect(throws: CredentialError.alreadyExists(token.id)) { try Credential.store(token) }
        try credential.setTags(["displayName": "Renamed", "service": "billing"])
        try Credential.use(vault)
        #expect(try Credential.with(id: token.id)?.tags == ["displayName": "Renamed", "service": "billing"])
    }

    @Test func theStandardSecurityOptionsApplyWhenNoneAreGiven() throws {
        Credential.Security.standard = [.accessibility(.afterFirstUnlockThisDeviceOnly)]
        defer { Credential.Security.standard = [.accessibility(.afterFirstUnlock)] }
        let configured = Vault.Configuration(deviceSecretURL: directory.file("device.secret"))
        let url = directory.file("device-vault.db")
        let keyFile = directory.file("device-vault.key")
        try KeyFile.generate(at: keyFile)
        let deviceVault = try Vault.create(at: url, unlock: .keyFile(keyFile), configuration: configured)
        try Credential.use(deviceVault)
        let credential = try Credential.store(TestTokens.token())
        #expect(
            try deviceVault.allTokenRecordMetadata().map(\.policy.accessibility) == [.afterFirstUnlockThisDeviceOnly])
        #expect(FileManager.default.fileExists(atPath: directory.file("device.secret").path))
        #expect(try Credential.with(id: credential.id) === credential)
    }

    @Test func accessControlledTokensAreFoundWithoutProofAndOpenedWithOne() throws {
        let factor = directory.file("factor.key")
        try KeyFile.generate(at: factor)
        try vault.enrollFactor(.keyFile(factor))
        let token = TestTokens.token(subject: "guarded@example.com")
        try Credential.store(
            token, tags: ["service": "payments"],
            security: [.accessibility(.afterFirstUnlock), .accessControl(.biometryAny)])
        try Credential.store(TestTokens.token(subject: "open@example.com"))
        try Credential.use(vault)  // forget the instances: the next lookups read the vault

        // Filtering runs over metadata without any proof.
        #expect(try Credential.find { $0.subject == "open@example.com" }.count == 1)
        // A match that cannot be opened fails the call: never a silently shorter list.
        #expect(throws: CredentialError.storage(.interactionRequired)) {
            try Credential.find { $0.tags["service"] == "payments" }
        }
        #expect(throws: CredentialError.storage(.interactionRequired)) { try Credential.find { _ in true } }
        #expect(throws: CredentialError.storage(.interactionRequired)) { try Credential.with(id: token.id) }
        let context = KeyFileAuthenticationContext(keyFile: factor)
        let found = try Credential.find(where: { $0.tags["service"] == "payments" }, authenticationContext: context)
        #expect(found.map(\.token) == [token])
        // Tags change without a proof.
        try found[0].setTags(["service": "payments", "note": "x"])
        #expect(try Credential.find { $0.tags["note"] == "x" }.first === found[0])
    }

    @Test func concurrentStoresFindsDefaultsAndRemovals() async throws {
        let removedIDs = Locked<Set<String>>([])
        let storedIDs = Locked<Set<String>>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for step in 0..<15 {
                        let credential = try Credential.store(TestTokens.token(), tags: ["worker": "\(worker)"])
                        storedIDs.withLock { _ = $0.insert(credential.id) }
                        let mine = try Credential.find { $0.tags["worker"] == "\(worker)" }
                        #expect(mine.contains(credential))
                        if step % 3 == 0 { Credential.default = credential }
                        if step % 2 == 0 {
                            try credential.remove()
                            removedIDs.withLock { _ = $0.insert(credential.id) }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let expected = storedIDs.value.subtracting(removedIDs.value)
        #expect(Set(Credential.allIDs) == expected)
        if let current = Credential.default { #expect(expected.contains(current.id)) }
        #expect(try vault.verify().recordCount >= expected.count)
    }

    @Test func tokensPersistAcrossProcesses() throws {
        let other = TemporaryDirectory()
        let (_, url, keyFile) = try TestVaults.keyFileVault(in: other)
        let (status, output) = try WorkerProcess.run([
            "store-credential", url.path, keyFile.path, "worker@example.com", "1",
        ])
        #expect(status == 0, "\(output)")
        let id = try #require(output.split(separator: "\n").first.map(String.init))
        try Credential.use(Vault.open(at: url, unlock: .keyFile(keyFile)))
        let credential = try #require(try Credential.with(id: id))
        #expect(credential.token.idToken?.subject == "worker@example.com")
        #expect(credential.tags == ["storedBy": "worker"])
        #expect(Credential.default === credential)
    }
}
