import Testing
import VaultCrypto

@Suite struct KeyDerivationTests {
    let password = SecureBytes(copying: Array("pass".utf8))
    let cheap = Argon2id.Parameters(opsLimit: 1, memLimitBytes: 8192)

    @Test func argon2idIsDeterministicPerSaltAndParameters() throws {
        let salt = SecureRandom.bytes(count: 16)
        let first = try Argon2id.deriveKey(from: password, salt: salt, parameters: cheap)
        #expect(first == (try Argon2id.deriveKey(from: password, salt: salt, parameters: cheap)))
        #expect(
            first != (try Argon2id.deriveKey(from: password, salt: SecureRandom.bytes(count: 16), parameters: cheap)))
        #expect(
            first
                != (try Argon2id.deriveKey(
                    from: password, salt: salt, parameters: .init(opsLimit: 2, memLimitBytes: 8192))))
    }

    @Test func argon2idRejectsBadInputBeforeRunning() {
        #expect(throws: CryptoError.self) {
            try Argon2id.deriveKey(from: password, salt: [1, 2, 3], parameters: cheap)
        }
        #expect(throws: CryptoError.self) {
            try Argon2id.deriveKey(
                from: password, salt: SecureRandom.bytes(count: 16), parameters: .init(opsLimit: 0, memLimitBytes: 8192)
            )
        }
        #expect(throws: CryptoError.self) {
            try Argon2id.deriveKey(
                from: password, salt: SecureRandom.bytes(count: 16), parameters: .init(opsLimit: 1, memLimitBytes: 1024)
            )
        }
    }

    @Test func emptyPasswordIsAccepted() throws {
        let key = try Argon2id.deriveKey(
            from: SecureBytes(copying: []), salt: [UInt8](repeating: 0, count: 16), parameters: cheap)
        #expect(key.byteCount == 32)
    }

    @Test func subkeysAreIndependentPerIdAndContext() throws {
        let master = SymmetricKey()
        let one = try SubkeyDerivation.deriveKey(from: master, id: 1, context: "TVvault1")
        #expect(one != (try SubkeyDerivation.deriveKey(from: master, id: 2, context: "TVvault1")))
        #expect(one != (try SubkeyDerivation.deriveKey(from: master, id: 1, context: "TVother1")))
        #expect(throws: CryptoError.self) { try SubkeyDerivation.deriveKey(from: master, id: 1, context: "short") }
        #expect(throws: CryptoError.self) {
            try SubkeyDerivation.deriveKey(from: SymmetricKey(randomByteCount: 16), id: 1, context: "TVvault1")
        }
    }

    @Test func keyedBLAKE2bDependsOnTheKey() {
        let message = Array("name".utf8)
        let key = SymmetricKey()
        #expect(BLAKE2b.hash(message, key: key) == BLAKE2b.hash(message, key: key))
        #expect(BLAKE2b.hash(message, key: key) != BLAKE2b.hash(message, key: SymmetricKey()))
        #expect(BLAKE2b.hash(message).count == 32)
        #expect(
            BLAKE2b.deriveKey(from: message, key: key).withUnsafeBytes { Array($0) } == BLAKE2b.hash(message, key: key))
    }
}
