import Testing
import VaultCrypto

@Suite struct XChaCha20Poly1305Tests {
    let key = SymmetricKey()
    let message = Array("a refresh token".utf8)
    let associatedData = Array("record 42".utf8)

    @Test func roundTripsWithRandomNonces() throws {
        let first = try XChaCha20Poly1305.seal(message, using: key, authenticating: associatedData)
        let second = try XChaCha20Poly1305.seal(message, using: key, authenticating: associatedData)
        #expect(first.nonce != second.nonce)
        #expect(first.ciphertext != second.ciphertext)
        #expect(first.combined.count == 24 + message.count + 16)
        #expect(try XChaCha20Poly1305.open(first, using: key, authenticating: associatedData) == message)
    }

    @Test func everyFlippedBitFailsToOpen() throws {
        let box = try XChaCha20Poly1305.seal(message, using: key, authenticating: associatedData)
        for index in box.combined.indices {
            var bytes = box.combined
            bytes[index] ^= 0x01
            #expect(throws: CryptoError.authenticationFailed) {
                try XChaCha20Poly1305.open(.init(combined: bytes), using: key, authenticating: associatedData)
            }
        }
    }

    @Test func wrongKeyOrAssociatedDataFails() throws {
        let box = try XChaCha20Poly1305.seal(message, using: key, authenticating: associatedData)
        #expect(throws: CryptoError.authenticationFailed) {
            try XChaCha20Poly1305.open(box, using: SymmetricKey(), authenticating: associatedData)
        }
        #expect(throws: CryptoError.authenticationFailed) {
            try XChaCha20Poly1305.open(box, using: key, authenticating: Array("record 43".utf8))
        }
        #expect(throws: CryptoError.authenticationFailed) {
            try XChaCha20Poly1305.openSecure(box, using: key, authenticating: [])
        }
    }

    @Test func emptyPlaintextStillAuthenticates() throws {
        let box = try XChaCha20Poly1305.seal([], using: key, authenticating: associatedData)
        #expect(box.combined.count == 40)
        #expect(try XChaCha20Poly1305.open(box, using: key, authenticating: associatedData) == [])
        var tampered = box.combined
        tampered[tampered.count - 1] ^= 1
        #expect(throws: CryptoError.authenticationFailed) {
            try XChaCha20Poly1305.open(
                XChaCha20Poly1305.SealedBox(combined: tampered), using: key, authenticating: associatedData)
        }
        #expect(throws: CryptoError.authenticationFailed) {
            try XChaCha20Poly1305.open(box, using: key, authenticating: associatedData + [0])
        }
    }

    @Test func badLengthsAreTypedErrors() {
        #expect(throws: CryptoError.self) {
            try XChaCha20Poly1305.SealedBox(combined: [UInt8](repeating: 0, count: 39))
        }
        #expect(throws: CryptoError.self) { try XChaCha20Poly1305.Nonce(bytes: [1, 2, 3]) }
        #expect(throws: CryptoError.self) {
            try XChaCha20Poly1305.seal(message, using: SymmetricKey(randomByteCount: 16))
        }
    }

    @Test func secureOpenMatchesPlainOpen() throws {
        let secret = SecureBytes.random(count: 32)
        let box = try XChaCha20Poly1305.seal(secret, using: key, authenticating: associatedData)
        let opened = try XChaCha20Poly1305.openSecure(box, using: key, authenticating: associatedData)
        #expect(opened == secret)
    }
}
