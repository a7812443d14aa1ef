import TestSupport
import Testing
import VaultCrypto

/// libsodium's own vectors and the draft-irtf-cfrg-xchacha vector, through the Swift layer.
@Suite struct KnownAnswerTests {
    static let vectors = KnownAnswerVectors.shipped

    @Test(arguments: vectors.xchacha20poly1305)
    func xchacha20Poly1305(vector: KnownAnswerVectors.AEAD) throws {
        let key = SymmetricKey(copying: [UInt8](hex: vector.key))
        let nonce = try XChaCha20Poly1305.Nonce(bytes: [UInt8](hex: vector.nonce))
        let box = try XChaCha20Poly1305.seal(
            [UInt8](hex: vector.plaintext), using: key, nonce: nonce, authenticating: [UInt8](hex: vector.ad))
        #expect(box.combined == [UInt8](hex: vector.nonce) + [UInt8](hex: vector.combined), "\(vector.source)")
        let opened = try XChaCha20Poly1305.open(box, using: key, authenticating: [UInt8](hex: vector.ad))
        #expect(opened == [UInt8](hex: vector.plaintext))
    }

    @Test(arguments: vectors.argon2id)
    func argon2id(vector: KnownAnswerVectors.Argon2) throws {
        let key = try Argon2id.deriveKey(
            from: SecureBytes(copying: [UInt8](hex: vector.password)), salt: [UInt8](hex: vector.salt),
            parameters: .init(opsLimit: vector.opsLimit, memLimitBytes: vector.memLimitBytes),
            outputByteCount: vector.hash.count / 2)
        #expect(key.withUnsafeBytes { Array($0) } == [UInt8](hex: vector.hash), "\(vector.source)")
    }

    @Test(arguments: vectors.blake2bKeyed)
    func blake2b(vector: KnownAnswerVectors.BLAKE2) {
        let key = vector.key.isEmpty ? nil : SymmetricKey(copying: [UInt8](hex: vector.key))
        let digest = BLAKE2b.hash([UInt8](hex: vector.message), key: key, outputByteCount: vector.digest.count / 2)
        #expect(digest == [UInt8](hex: vector.digest), "\(vector.source)")
    }

    @Test(arguments: vectors.kdf)
    func subkeyDerivation(vector: KnownAnswerVectors.KDF) throws {
        let subkey = try SubkeyDerivation.deriveKey(
            from: SymmetricKey(copying: [UInt8](hex: vector.masterKey)), id: vector.subkeyID,
            context: vector.context, byteCount: vector.subkey.count / 2)
        #expect(subkey.withUnsafeBytes { Array($0) } == [UInt8](hex: vector.subkey), "\(vector.source)")
    }

    @Test func everyFamilyHasVectors() {
        #expect(Self.vectors.xchacha20poly1305.count >= 1)
        #expect(Self.vectors.xchacha20poly1305.contains { $0.source.contains("draft-irtf-cfrg-xchacha") })
        #expect(Self.vectors.argon2id.count >= 3)
        #expect(Self.vectors.blake2bKeyed.count >= 3)
        #expect(Self.vectors.kdf.count >= 3)
    }
}
