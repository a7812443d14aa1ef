import Foundation
import TestSupport
import Testing
import TokenVault

/// One suite for every `TokenStorage`.
@Suite struct TokenStorageConformanceTests {
    let directory = TemporaryDirectory()

    func add(_ token: Token, to storage: any TokenStorage, tags: [String: String] = [:]) throws -> Bool {
        try storage.add(token: token, metadata: Token.Metadata(token: token, tags: tags), security: [])
    }

    @Test(arguments: StorageKind.all)
    func theFirstTokenBecomesTheDefaultAtomically(kind: StorageKind) throws {
        let storage = try kind.make(directory)
        let first = TestTokens.token()
        let second = TestTokens.token()
        #expect(try storage.defaultTokenID() == nil)
        #expect(try add(first, to: storage))
        #expect(try !add(second, to: storage))
        #expect(try storage.defaultTokenID() == first.id)
        #expect(try storage.allIDs().sorted() == [first.id, second.id].sorted())
        #expect(throws: CredentialError.alreadyExists(first.id)) { try add(first, to: storage) }
    }

    /// A stored token becomes the default only when there is none, as a new one does when added.
    @Test(arguments: StorageKind.all)
    func aStoredTokenBecomesTheDefaultOnlyWhenThereIsNone(kind: StorageKind) throws {
        let storage = try kind.make(directory)
        let first = TestTokens.token()
        let second = TestTokens.token()
        _ = try add(first, to: storage)
        _ = try add(second, to: storage)
        #expect(try !storage.setDefaultTokenIDIfNone(second.id))
        #expect(try storage.defaultTokenID() == first.id)
        try storage.setDefaultTokenID(nil)
        #expect(throws: CredentialError.notFound("missing")) { try storage.setDefaultTokenIDIfNone("missing") }
        #expect(try storage.defaultTokenID() == nil)
        #expect(try storage.setDefaultTokenIDIfNone(second.id))
        #expect(try storage.defaultTokenID() == second.id)
        #expect(try !storage.setDefaultTokenIDIfNone(first.id))
        #expect(try storage.defaultTokenID() == second.id)
    }

    @Test(arguments: StorageKind.all)
    func aRefusedDuplicateLeavesTheStoredTokenAndItsIndexAsTheyWere(kind: StorageKind) throws {
        let storage = try kind.make(directory)
        let stored = TestTokens.token(subject: "alice")
        _ = try add(stored, to: storage, tags: ["team": "red"])
        let other = TestTokens.token(subject: "mallory")
        let impostor = Token(
            id: stored.id, tokenType: other.tokenType, accessToken: other.accessToken, refreshToken: other.refreshToken,
            idToken: other.idToken, deviceSecret: nil, scope: other.scope, issuedAt: other.issuedAt,
            expiresIn: other.expiresIn, context: other.context)
        #expect(throws: CredentialError.alreadyExists(stored.id)) {
            try add(impostor, to: storage, tags: ["team": "blue"])
        }
        #expect(try storage.token(id: stored.id, prompt: nil, authenticationContext: nil) == stored)
        #expect(try storage.metadata(taggedWith: ["team": "red"]).map(\.id) == [stored.id])
        #expect(try storage.metadata(taggedWith: ["team": "blue"]).isEmpty)
        let next = TestTokens.token()
        _ = try add(next, to: storage)  // the refused write left nothing behind that blocks the next one
        #expect(try storage.allIDs().sorted() == [stored.id, next.id].sorted())
    }

    @Test(arguments: StorageKind.all)
    func tokensAndMetadataRoundTrip(kind: StorageKind) throws {
        let storage = try kind.make(directory)
        let token = TestTokens.token(subject: "alice", roles: ["admin"])
        _ = try add(token, to: storage, tags: ["service": "purchase"])
        #expect(try storage.token(id: token.id, prompt: nil, authenticationContext: nil) == token)
        let metadata = try #require(try storage.metadata(id: token.id))
        #expect(metadata.tags == ["service": "purchase"])
        #expect(metadata.subject == "alice")
        #expect((metadata[.roles] as? [String]) == ["admin"])
        #expect(try storage.allMetadata() == [metadata])
        #expect(try storage.token(id: "missing", prompt: nil, authenticationContext: nil) == nil)
        #expect(try storage.metadata(id: "missing") == nil)
    }

    @Test(arguments: StorageKind.all)
    func replaceAndSetMetadataNeedAStoredID(kind: StorageKind) throws {
        let storage = try kind.make(directory)
        let token = TestTokens.token()
        _ = try add(token, to: storage)
        let refreshed = Token(
            id: token.id, tokenType: "Bearer", accessToken: "new-access", refreshToken: "new-refresh",
            idToken: token.idToken, deviceSecret: nil, scope: token.scope, issuedAt: Date(), expiresIn: 60,
            context: token.context)
        let added = try #require(try storage.storedMetadata(id: token.id)).version
        let replaced = try storage.replace(
            token: refreshed, metadata: Token.Metadata(token: refreshed, tags: ["k": "v"]), expectedVersion: added)
        #expect(replaced > added)
        #expect(try storage.token(id: token.id, prompt: nil, authenticationContext: nil) == refreshed)
        #expect(try storage.metadata(id: token.id)?.tags == ["k": "v"])
        let tagged = try storage.setMetadata(Token.Metadata(id: token.id, tags: ["k": "w"]), expectedVersion: replaced)
        #expect(try storage.metadata(id: token.id)?.tags == ["k": "w"])
        #expect(try storage.token(id: token.id, prompt: nil, authenticationContext: nil) == refreshed)
        let stored = try #require(try storage.storedToken(id: token.id, prompt: nil, authenticationContext: nil))
        #expect(
            stored
                == StoredToken(
                    token: refreshed,
                    metadata: Token.Metadata(id: token.id, tags: ["k": "w"], claims: stored.metadata.claims),
                    version: tagged))
        let stranger = TestTokens.token()
        #expect(throws: CredentialError.notFound(stranger.id)) {
            try storage.replace(
                token: stranger, metadata: Token.Metadata(token: stranger, tags: [:]), expectedVersion: 1)
        }
        #expect(throws: CredentialError.notFound("nope")) {
            try storage.setMetadata(Token.Metadata(id: "nope"), expectedVersion: 1)
        }
    }

    @Test(arguments: StorageKind.all)
    func everyWriteFromAnOlderVersionIsRefused(kind: StorageKind) throws {
        let storage = try kind.make(directory)
        let token = TestTokens.token()
        _ = try add(token, to: storage, tags: ["k": "v"])
        let read = try #require(try storage.storedToken(id: token.id, prompt: nil, authenticationContext: nil))
        let newer = token.expiring(in: 600)
        let written = try storage.replace(token: newer, metadata: read.metadata, expectedVersion: read.version)

        // Each write from the version read before that one is refused and changes nothing.
        #expect(throws: CredentialError.conflict(token.id)) {
            try storage.replace(token: token, metadata: read.metadata, expectedVersion: read.version)
        }
        #expect(throws: CredentialError.conflict(token.id)) {
            try storage.setMetadata(Token.Metadata(id: token.id, tags: ["k": "stale"]), expectedVersion: read.version)
        }
        #expect(throws: CredentialError.conflict(token.id)) {
            try storage.remove(id: token.id, expectedVersion: read.version)
        }
        let now = try #require(try storage.storedToken(id: token.id, prompt: nil, authenticationContext: nil))
        #expect(now.token == newer && now.metadata.tags == ["k": "v"] && now.version == written)

        #expect(try storage.remove(id: token.id, expectedVersion: written))
        #expect(throws: CredentialError.conflict(token.id)) {
            try storage.remove(id: token.id, expectedVersion: written)
        }
        #expect(try storage.storedMetadata(id: token.id) == nil)
    }

    @Test(arguments: StorageKind.all)
    func removingTheDefaultLeavesNoDefault(kind: StorageKind) throws {
        let storage = try kind.make(directory)
        let first = TestTokens.token()
        let second = TestTokens.token()
        _ = try add(first, to: storage)
        _ = try add(second, to: storage)
        #expect(try !storage.remove(id: second.id))
        #expect(try storage.defaultTokenID() == first.id)
        _ = try add(second, to: storage)
        #expect(try storage.remove(id: first.id))
        #expect(try storage.defaultTokenID() == nil)  // no silent promotion
        #expect(try !storage.remove(id: first.id))
        #expect(throws: CredentialError.notFound(first.id)) { try storage.setDefaultTokenID(first.id) }
        try storage.setDefaultTokenID(second.id)
        #expect(try storage.defaultTokenID() == second.id)
        try storage.setDefaultTokenID(nil)
        #expect(try storage.defaultTokenID() == nil)
        #expect(try storage.allIDs() == [second.id])
    }

    @Test(arguments: StorageKind.all)
    func contradictorySecurityOptionsAreRefused(kind: StorageKind) throws {
        let storage = try kind.make(directory)
        let token = TestTokens.token()
        #expect(throws: CredentialError.invalidSecurityOptions("accessibility is given twice with different values")) {
            try storage.add(
                token: token, metadata: Token.Metadata(token: token, tags: [:]),
                security: [.accessibility(.whenUnlocked), .accessibility(.afterFirstUnlock)])
        }
        #expect(try storage.allIDs().isEmpty)
    }
}

@Suite struct InMemoryTokenStorageTests {
    @Test func optionsItCannotEnforceAreRefused() {
        let storage = InMemoryTokenStorage()
        let token = TestTokens.token()
        for option: Credential.Security in [
            .accessibility(.whenUnlocked), .accessGroup("g"), .accessControl(.userPresence),
        ] {
            #expect(throws: CredentialError.self) {
                try storage.add(token: token, metadata: Token.Metadata(token: token, tags: [:]), security: [option])
            }
        }
        #expect((try? storage.allIDs()) == [])
    }
}
