import Foundation
import Locking
import TestSupport
import Testing
import TokenVault

@Suite struct AccessControlTests {
    let directory = TemporaryDirectory()
    let clock = ManualClock()
    let factorPassphrase: Passphrase = "re-entry passphrase"

    /// A vault with both factors enrolled, and the second factor's key file.
    func makeVault() throws -> (Vault, URL) {
        let vault = try Vault.create(
            at: directory.file("vault.db"), unlock: VaultKind.unlock, keyDerivation: TestVaults.fastKeyDerivation,
            configuration: Vault.Configuration(clock: clock, deviceSecretURL: directory.file("device.secret")))
        try vault.enrollFactor(.passphrase(factorPassphrase), keyDerivation: TestVaults.fastKeyDerivation)
        let token = directory.file("token.key")
        try KeyFile.generate(at: token)
        try vault.enrollFactor(.keyFile(token))
        #expect(try vault.enrolledFactors() == [.passcode, .secondFactor])
        return (vault, token)
    }

    func key(_ flags: AccessControlFlags) -> SecretKey<String> {
        SecretKey<String>("protected", policy: VaultPolicy(accessControl: flags))
    }

    @Test func devicePasscodeNeedsThePassphraseProofAndMetadataDoesNot() throws {
        let (vault, _) = try makeVault()
        let item = key(.devicePasscode)
        try vault.set("the secret value", for: item)  // storing needs no proof
        #expect(try vault.contains(item))
        #expect(throws: VaultError.interactionRequired) { try vault.get(item) }
        #expect(throws: VaultError.invalidCredentials) {
            try vault.get(item, authenticationContext: PassphraseAuthenticationContext(passphrase: "wrong"))
        }
        let context = PassphraseAuthenticationContext(passphrase: factorPassphrase)
        #expect(try vault.get(item, authenticationContext: context) == "the secret value")

        // Cryptographic, not a gate: with every domain key the vault holds, the record opens but
        // the value is not in it.
        let outer = try #require(try vault.outerPlaintextForTesting(item))
        #expect(Data(outer).range(of: Data("the secret value".utf8)) == nil)
        #expect(Data(outer).range(of: Data("protected".utf8)) != nil)  // the name is metadata
    }

    @Test func biometryAnySurvivesReEnrolmentAndCurrentSetIsInvalidated() throws {
        let (vault, token) = try makeVault()
        try vault.set("any", for: SecretKey<String>("any", policy: VaultPolicy(accessControl: .biometryAny)))
        try vault.set(
            "current", for: SecretKey<String>("current", policy: VaultPolicy(accessControl: .biometryCurrentSet)))
        let oldContext = KeyFileAuthenticationContext(keyFile: token)
        #expect(
            try vault.get(SecretKey<String>("current", policy: .default), authenticationContext: oldContext)
                == "current")
        #expect(throws: VaultError.interactionRequired) {
            try vault.get(
                SecretKey<String>("any"),
                authenticationContext: PassphraseAuthenticationContext(passphrase: factorPassphrase))
        }

        let newToken = directory.file("new-token.key")
        try KeyFile.generate(at: newToken)
        try vault.changeFactor(from: .keyFile(token), to: .keyFile(newToken))
        let newContext = KeyFileAuthenticationContext(keyFile: newToken)
        #expect(try vault.get(SecretKey<String>("any"), authenticationContext: newContext) == "any")
        #expect(throws: VaultError.invalidCredentials) {
            try vault.get(SecretKey<String>("any"), authenticationContext: oldContext)
        }
        #expect(throws: VaultError.accessControlInvalidated) {
            try vault.get(SecretKey<String>("current"), authenticationContext: newContext)
        }
        #expect(throws: VaultError.invalidCredentials) {
            try vault.changeFactor(from: .keyFile(token), to: .keyFile(newToken))
        }
    }

    @Test func userPresenceAndOrAcceptEitherFactor() throws {
        let (vault, token) = try makeVault()
        let passphrase = PassphraseAuthenticationContext(passphrase: factorPassphrase)
        let keyFile = KeyFileAuthenticationContext(keyFile: token)
        for flags: AccessControlFlags in [.userPresence, [.devicePasscode, .or, .biometryAny]] {
            let item = key(flags)
            try vault.set("v\(flags.rawValue)", for: item)
            #expect(throws: VaultError.interactionRequired) { try vault.get(item) }
            #expect(try vault.get(item, authenticationContext: passphrase) == "v\(flags.rawValue)")
            #expect(try vault.get(item, authenticationContext: keyFile) == "v\(flags.rawValue)")
        }
    }

    @Test func andNeedsEveryFactor() throws {
        let (vault, token) = try makeVault()
        let item = key([.devicePasscode, .and, .biometryAny])
        try vault.set("both", for: item)
        let passphrase = PassphraseAuthenticationContext(passphrase: factorPassphrase)
        let keyFile = KeyFileAuthenticationContext(keyFile: token)
        #expect(throws: VaultError.interactionRequired) { try vault.get(item, authenticationContext: passphrase) }
        #expect(throws: VaultError.interactionRequired) { try vault.get(item, authenticationContext: keyFile) }
        #expect(
            try vault.get(item, authenticationContext: CombinedAuthenticationContext([passphrase, keyFile])) == "both")
    }

    @Test func aReuseWindowAsksOnceUntilItCloses() throws {
        let (vault, _) = try makeVault()
        let item = key(.devicePasscode)
        try vault.set("v", for: item)
        let asked = Locked(0)
        let passphrase = factorPassphrase
        let context = PassphraseAuthenticationContext(reuseWindow: .seconds(60)) { prompt in
            #expect(prompt == "Read the token")
            asked.withLock { $0 += 1 }
            return passphrase
        }
        for _ in 0..<3 { #expect(try vault.get(item, authenticationContext: context, prompt: "Read the token") == "v") }
        #expect(asked.withLock { $0 } == 1)
        clock.advance(by: .seconds(61))
        _ = try vault.get(item, authenticationContext: context, prompt: "Read the token")
        #expect(asked.withLock { $0 } == 2)
        vault.lock()
        try vault.unlock(VaultKind.unlock)
        _ = try vault.get(item, authenticationContext: context, prompt: "Read the token")
        #expect(asked.withLock { $0 } == 3)  // lock forgets reused proofs
        let declining = PassphraseAuthenticationContext { _ in nil }
        #expect(throws: VaultError.interactionRequired) { try vault.get(item, authenticationContext: declining) }
    }

    @Test func factorsAreEnrolledOnceAndChangedWithProof() throws {
        let (vault, _) = try makeVault()
        #expect(throws: VaultError.alreadyExists("an enrolled passcode factor")) {
            try vault.enrollFactor(.passphrase("another"), keyDerivation: TestVaults.fastKeyDerivation)
        }
        let item = key(.devicePasscode)
        try vault.set("v", for: item)
        try vault.changeFactor(from: .passphrase(factorPassphrase), to: .passphrase("changed factor"))
        #expect(throws: VaultError.invalidCredentials) {
            try vault.get(item, authenticationContext: PassphraseAuthenticationContext(passphrase: factorPassphrase))
        }
        #expect(
            try vault.get(item, authenticationContext: PassphraseAuthenticationContext(passphrase: "changed factor"))
                == "v")
        #expect(throws: VaultError.invalidArgument("both proofs must be of the same factor")) {
            try vault.changeFactor(from: .passphrase("changed factor"), to: .keyFile(directory.file("x")))
        }
    }

    @Test func accessControlledItemsSurviveReopeningInAnotherVaultObject() throws {
        let (vault, token) = try makeVault()
        try vault.set("persisted", for: key(.biometryAny))
        _ = consume vault
        let reopened = try Vault.open(at: directory.file("vault.db"), unlock: VaultKind.unlock)
        #expect(
            try reopened.get(key(.biometryAny), authenticationContext: KeyFileAuthenticationContext(keyFile: token))
                == "persisted")
        #expect(throws: VaultError.interactionRequired) { try reopened.update(key(.biometryAny)) { $0 ?? "" } }
    }
}
