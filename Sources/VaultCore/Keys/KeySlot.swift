import VaultCrypto

/// One row of `key_slots`: a key pair whose private key is sealed under a key encryption key, and
/// the current epoch's ``SlotPayload`` sealed to its public key (the slot's grant).
///
/// The private key is wrapped once, when the slot is made; every key rotation re-seals only the
/// grants, with `crypto_box_seal`, so the vault can move to a new master key without knowing any
/// other slot's passphrase. A slot that was removed or replaced is not given the new epoch's grant.
/// The slot's kind, scope flag, salt, KDF costs and public key are bound into the wrap's associated
/// data, so editing them makes the slot fail to open.
///
/// Slots written by format version 1 (``isLegacy``) have no key pair: they wrap the payload
/// directly under the KEK. They open as before and are upgraded in place by the first unlock that
/// uses them; a rotation waits until no legacy slot is left, since it could not reach them.
struct KeySlot {
    enum Kind: UInt8 {
        case passphrase = 1
        case keyFile = 2
        case composite = 3

        var usesPassphrase: Bool { self != .keyFile }
    }

    let id: [UInt8]
    let kind: Kind
    /// Whether the slot grants only some access groups (shown in clear so slots can be listed).
    let isScoped: Bool
    let salt: [UInt8]
    /// Argon2id costs; zero for key-file slots, which use no KDF.
    let parameters: Argon2id.Parameters
    /// The slot's public key; empty for a legacy slot.
    let publicKey: [UInt8]
    /// The private key sealed under the KEK (for a legacy slot: the payload itself).
    let wrapped: [UInt8]
    /// The payload of epoch ``epoch``, sealed to ``publicKey``; empty for a legacy slot.
    let grant: [UInt8]
    /// The epoch ``grant`` belongs to.
    let epoch: UInt64

    var isLegacy: Bool { publicKey.isEmpty }

    /// What one KDF run on this slot costs, for trying the cheapest slots first.
    var cost: Int { kind.usesPassphrase ? max(parameters.opsLimit, 0) &* max(parameters.memLimitBytes, 0) : 0 }

    /// Makes a new slot for `material` with a fresh key pair; it is granted nothing until
    /// ``granting(_:epoch:vaultID:)``.
    static func make(
        with material: UnlockMaterial, isScoped: Bool, keyDerivation: KeyDerivation, vaultID: [UInt8]
    ) throws -> (slot: KeySlot, keys: AnonymousSealedBox.KeyPair) {
        let parameters =
            material.slotKind.usesPassphrase
            ? keyDerivation.parameters : Argon2id.Parameters(opsLimit: 0, memLimitBytes: 0)
        if material.slotKind.usesPassphrase { try KeyDerivation.checkBounds(parameters) }
        let keys = AnonymousSealedBox.KeyPair()
        let unsealed = KeySlot(
            id: SecureRandom.bytes(count: VaultFormat.idByteCount), kind: material.slotKind, isScoped: isScoped,
            salt: SecureRandom.bytes(count: Argon2id.saltByteCount), parameters: parameters,
            publicKey: keys.publicKey, wrapped: [], grant: [], epoch: 0)
        let kek = try material.keyEncryptionKey(salt: unsealed.salt, parameters: parameters)
        let box = try XChaCha20Poly1305.seal(
            keys.privateKey.secureBytes, using: kek, authenticating: unsealed.associatedData(vaultID: vaultID))
        return (unsealed.with(wrapped: box.combined), keys)
    }

    /// This slot with `payload` sealed to it as the grant of `epoch`.
    func granting(_ payload: SlotPayload, epoch: UInt64, vaultID: [UInt8]) throws -> KeySlot {
        precondition(!isLegacy, "a legacy slot has no public key to grant to")
        precondition(payload.isScoped == isScoped, "a grant keeps the slot's scope")
        let sealed = try AnonymousSealedBox.seal(
            SlotGrant.plaintext(payload, slotID: id, epoch: epoch, vaultID: vaultID), to: publicKey)
        return KeySlot(
            id: id, kind: kind, isScoped: isScoped, salt: salt, parameters: parameters, publicKey: publicKey,
            wrapped: wrapped, grant: sealed, epoch: epoch)
    }

    private func with(wrapped: [UInt8]) -> KeySlot {
        KeySlot(
            id: id, kind: kind, isScoped: isScoped, salt: salt, parameters: parameters, publicKey: publicKey,
            wrapped: wrapped, grant: grant, epoch: epoch)
    }

    /// The slot's private key, or `nil` when the material is not this slot's (or the slot was tampered
    /// with: a damaged slot is a slot that does not open, so another intact slot can still be tried).
    func unlockKeys(with material: UnlockMaterial, vaultID: [UInt8]) throws -> AnonymousSealedBox.KeyPair? {
        guard !isLegacy, material.slotKind == kind, salt.count == Argon2id.saltByteCount else { return nil }
        let kek = try material.keyEncryptionKey(salt: salt, parameters: parameters)
        guard let box = try? XChaCha20Poly1305.SealedBox(combined: wrapped),
            let privateKey = VaultFormat.slotWrapVersions.lazy.compactMap({
                try? XChaCha20Poly1305.openSecure(
                    box, using: kek, authenticating: associatedData(vaultID: vaultID, version: $0))
            }).first,
            privateKey.count == AnonymousSealedBox.publicKeyByteCount,
            let keys = try? AnonymousSealedBox.KeyPair(privateKey: SymmetricKey(secureBytes: privateKey)),
            safeCompare(keys.publicKey, publicKey)
        else { return nil }
        return keys
    }

    /// The payload this slot was granted for `epoch`, opened with its private key.
    ///
    /// - Returns: `nil` when the grant is of another epoch or does not open (an old slot row
    ///   re-inserted after a rotation, or a tampered one).
    func openGrant(with keys: AnonymousSealedBox.KeyPair, epoch: UInt64, vaultID: [UInt8]) throws -> SlotPayload? {
        guard self.epoch == epoch, let opened = try? AnonymousSealedBox.open(grant, with: keys) else { return nil }
        guard let payload = try SlotGrant.payload(opened, slotID: id, epoch: epoch, vaultID: vaultID) else {
            return nil
        }
        guard payload.isScoped == isScoped else { throw VaultError.integrity("a key slot's scope flag is wrong") }
        return payload
    }

    /// Opens a legacy (format version 1) slot: its payload, or `nil` when the material is not its own.
    func unwrapLegacy(with material: UnlockMaterial, vaultID: [UInt8]) throws -> SlotPayload? {
        guard isLegacy, material.slotKind == kind, salt.count == Argon2id.saltByteCount else { return nil }
        let kek = try material.keyEncryptionKey(salt: salt, parameters: parameters)
        guard let box = try? XChaCha20Poly1305.SealedBox(combined: wrapped),
            let payload = try? XChaCha20Poly1305.openSecure(
                box, using: kek, authenticating: associatedData(vaultID: vaultID))
        else { return nil }
        let decoded = try SlotPayload(decoding: payload)
        guard decoded.isScoped == isScoped else { throw VaultError.integrity("a key slot's scope flag is wrong") }
        return decoded
    }

    /// The associated data of the wrap: format, vault, slot, kind, scope, salt, costs and (from
    /// version 2) the public key.
    ///
    /// - Parameter version: The format number bound in a slot with a public key (one of
    ///   ``VaultFormat/slotWrapVersions``); a legacy slot always binds 1.
    func associatedData(vaultID: [UInt8], version: Int = VaultFormat.sealingVersion) -> [UInt8] {
        var writer = ByteWriter()
        writer.append(raw: isLegacy ? VaultFormat.Tag.legacyKeySlot : VaultFormat.Tag.keySlot)
        writer.append(UInt16(isLegacy ? 1 : version))
        writer.append(raw: vaultID)
        appendClearColumns(to: &writer)
        if !isLegacy { writer.append(raw: publicKey) }
        return writer.bytes
    }

    /// Id, kind, scope flag, salt and costs, as bound into the wrap and hashed into the digest.
    private func appendClearColumns(to writer: inout ByteWriter) {
        writer.append(raw: id)
        writer.append(kind.rawValue)
        writer.append(UInt8(isScoped ? 1 : 0))
        writer.append(lengthPrefixed: salt)
        // The row's integers as stored, whatever their sign: a slot edited to a negative cost then fails
        // to open like any other edited slot, rather than trapping on the conversion.
        writer.append(UInt64(truncatingIfNeeded: parameters.opsLimit))
        writer.append(UInt64(truncatingIfNeeded: parameters.memLimitBytes))
    }

    /// This slot's term in the integrity digest: a keyed hash of every column, so that a slot row
    /// re-inserted from an old copy, edited or deleted outside the vault shows in ``Vault/verify()``.
    func integrityHash(key: SymmetricKey) -> [UInt8] {
        var writer = ByteWriter(reservingCapacity: 160)
        writer.append(raw: Array("TVK2".utf8))
        appendClearColumns(to: &writer)
        writer.append(lengthPrefixed: publicKey)
        writer.append(raw: BLAKE2b.hash(wrapped))
        writer.append(raw: BLAKE2b.hash(grant))
        writer.append(epoch)
        return BLAKE2b.hash(writer.bytes, key: key)
    }
}
