import VaultCrypto

/// An enrolled factor, stored as a metadata record.
///
/// Each factor has a class key pair: items are sealed to its public key (so storing needs no
/// proof), and its private key is stored sealed under a key derived from the proof alone (the
/// passphrase through Argon2id, or the key file). The enrolment key pair is derived from the proof
/// itself, so items bound to the current enrolment (`.biometryCurrentSet`) cannot be opened after
/// the factor changes. A new enrolment also gets a new class key pair; ``Vault/changeFactor(from:to:keyDerivation:)``
/// re-seals the items' shares to it, so the old proof opens nothing stored afterwards.
struct FactorRecord {
    let factor: AuthenticationFactor
    let enrollmentID: [UInt8]
    let classPublicKey: [UInt8]
    let enrollmentPublicKey: [UInt8]
    let salt: [UInt8]
    let parameters: Argon2id.Parameters
    let wrappedClassKey: [UInt8]

    /// The keys a proof unlocks.
    struct Keys {
        let classKeys: AnonymousSealedBox.KeyPair
        let enrollmentKeys: AnonymousSealedBox.KeyPair
        let enrollmentID: [UInt8]
    }

    /// Enrols `proof` with a new class key pair.
    static func enroll(
        _ proof: AuthenticationProof, keyDerivation: KeyDerivation, vaultID: [UInt8], allowsInsecurePermissions: Bool
    ) throws -> FactorRecord {
        let material = try UnlockMaterial(proof.unlock, allowsInsecurePermissions: allowsInsecurePermissions)
        try material.checkStrength()
        let parameters =
            proof.factor == .passcode ? keyDerivation.parameters : Argon2id.Parameters(opsLimit: 0, memLimitBytes: 0)
        if proof.factor == .passcode { try KeyDerivation.checkBounds(parameters) }
        let salt = SecureRandom.bytes(count: Argon2id.saltByteCount)
        let proofKey = try Self.proofKey(material, salt: salt, parameters: parameters)
        let classKeys = AnonymousSealedBox.KeyPair()
        let enrollmentKeys = try Self.enrollmentKeys(proofKey)
        let unsealed = FactorRecord(
            factor: proof.factor, enrollmentID: SecureRandom.bytes(count: 16), classPublicKey: classKeys.publicKey,
            enrollmentPublicKey: enrollmentKeys.publicKey, salt: salt, parameters: parameters, wrappedClassKey: [])
        let wrapped = try XChaCha20Poly1305.seal(
            classKeys.privateKey.secureBytes, using: proofKey, authenticating: unsealed.associatedData(vaultID: vaultID)
        )
        return FactorRecord(
            factor: unsealed.factor, enrollmentID: unsealed.enrollmentID, classPublicKey: unsealed.classPublicKey,
            enrollmentPublicKey: unsealed.enrollmentPublicKey, salt: salt, parameters: parameters,
            wrappedClassKey: wrapped.combined)
    }

    /// Checks `proof` and returns the keys it unlocks.
    ///
    /// - Throws: ``VaultError/invalidCredentials`` for a wrong passphrase or key file;
    ///   ``VaultError/unsupportedFormat(_:)`` for stored costs out of bounds.
    func open(with proof: AuthenticationProof, vaultID: [UInt8], allowsInsecurePermissions: Bool) throws -> Keys {
        guard proof.factor == factor else { throw VaultError.invalidCredentials }
        if factor == .passcode { try KeyDerivation.checkBounds(parameters) }
        let proofKey = try Self.proofKey(
            UnlockMaterial(proof.unlock, allowsInsecurePermissions: allowsInsecurePermissions), salt: salt,
            parameters: parameters)
        guard let box = try? XChaCha20Poly1305.SealedBox(combined: wrappedClassKey),
            let privateKey = try? XChaCha20Poly1305.openSecure(
                box, using: proofKey, authenticating: associatedData(vaultID: vaultID))
        else { throw VaultError.invalidCredentials }
        let classKeys = try AnonymousSealedBox.KeyPair(privateKey: SymmetricKey(secureBytes: privateKey))
        guard classKeys.publicKey == classPublicKey else { throw VaultError.integrity("a factor's keys do not match") }
        return Keys(classKeys: classKeys, enrollmentKeys: try Self.enrollmentKeys(proofKey), enrollmentID: enrollmentID)
    }

    private static func proofKey(
        _ material: UnlockMaterial, salt: [UInt8], parameters: Argon2id.Parameters
    ) throws -> SymmetricKey {
        BLAKE2b.deriveKey(
            from: Array("factor proof".utf8), key: try material.keyEncryptionKey(salt: salt, parameters: parameters))
    }

    private static func enrollmentKeys(_ proofKey: SymmetricKey) throws -> AnonymousSealedBox.KeyPair {
        try AnonymousSealedBox.KeyPair(seed: BLAKE2b.deriveKey(from: Array("enrollment".utf8), key: proofKey))
    }

    private func associatedData(vaultID: [UInt8]) -> [UInt8] {
        var writer = ByteWriter()
        writer.append(raw: Array("TVF1".utf8))
        writer.append(raw: vaultID)
        writer.append(factor.code)
        writer.append(raw: enrollmentID)
        writer.append(raw: classPublicKey)
        writer.append(raw: enrollmentPublicKey)
        writer.append(lengthPrefixed: salt)
        writer.append(UInt64(parameters.opsLimit))
        writer.append(UInt64(parameters.memLimitBytes))
        return writer.bytes
    }

    // MARK: Encoding

    var bytes: [UInt8] {
        var writer = ByteWriter()
        writer.append(factor.code)
        writer.append(lengthPrefixed: enrollmentID)
        writer.append(lengthPrefixed: classPublicKey)
        writer.append(lengthPrefixed: enrollmentPublicKey)
        writer.append(lengthPrefixed: salt)
        writer.append(UInt64(parameters.opsLimit))
        writer.append(UInt64(parameters.memLimitBytes))
        writer.append(lengthPrefixed: wrappedClassKey)
        return writer.bytes
    }

    init(decoding bytes: [UInt8]) throws {
        var reader = ByteReader(bytes)
        guard let factor = AuthenticationFactor(code: try reader.read(UInt8.self)) else {
            throw VaultError.unsupportedFormat("an enrolled factor has an unknown kind")
        }
        self.factor = factor
        enrollmentID = try reader.readLengthPrefixed()
        classPublicKey = try reader.readLengthPrefixed()
        enrollmentPublicKey = try reader.readLengthPrefixed()
        salt = try reader.readLengthPrefixed()
        // Costs above Int.max cannot have been written by this library; refuse them rather than trap.
        guard let opsLimit = Int(exactly: try reader.read(UInt64.self)),
            let memLimitBytes = Int(exactly: try reader.read(UInt64.self))
        else { throw VaultError.integrity("an enrolled factor's costs are out of range") }
        parameters = Argon2id.Parameters(opsLimit: opsLimit, memLimitBytes: memLimitBytes)
        wrappedClassKey = try reader.readLengthPrefixed()
        try reader.expectEnd()
    }

    private init(
        factor: AuthenticationFactor, enrollmentID: [UInt8], classPublicKey: [UInt8], enrollmentPublicKey: [UInt8],
        salt: [UInt8], parameters: Argon2id.Parameters, wrappedClassKey: [UInt8]
    ) {
        self.factor = factor
        self.enrollmentID = enrollmentID
        self.classPublicKey = classPublicKey
        self.enrollmentPublicKey = enrollmentPublicKey
        self.salt = salt
        self.parameters = parameters
        self.wrappedClassKey = wrappedClassKey
    }
}
