import VaultCrypto

extension Vault {
    /// Enrols a factor for access control: a passphrase (the passcode factor) or a key file held
    /// outside the vault (the second factor). Items stored with `.accessControl(...)` afterwards are
    /// sealed so that only a proof of the factor can read them.
    ///
    /// - Parameters:
    ///   - proof: The passphrase or key file to enrol.
    ///   - keyDerivation: Argon2id costs for a passphrase; `.moderate` by default.
    /// - Throws: ``VaultError/alreadyExists(_:)`` when that factor is enrolled (use
    ///   ``changeFactor(from:to:keyDerivation:)``), ``VaultError/locked``.
    public func enrollFactor(_ proof: AuthenticationProof, keyDerivation: KeyDerivation = .moderate) throws {
        try Self.translatingErrors {
            let record = try FactorRecord.enroll(
                proof, keyDerivation: keyDerivation, vaultID: vaultID,
                allowsInsecurePermissions: configuration.allowsInsecurePermissions)
            try write { transaction in
                guard try transaction.row(lookup: FactorStore.lookup(proof.factor, transaction.keys)) == nil else {
                    throw VaultError.alreadyExists("an enrolled \(proof.factor.rawValue) factor")
                }
                try FactorStore.store(record, in: &transaction)
            }
        }
    }

    /// Re-enrols a factor (a new passphrase, or a new key file), proving the old one, and revokes the
    /// old proof: the factor gets a new class key pair, and every access-controlled item's share for
    /// it is re-sealed to the new key in the same transaction. The old proof, even with an old copy of
    /// the file, opens no share written afterwards.
    ///
    /// Items stored with `.biometryAny`, `.devicePasscode` or `.userPresence` stay readable with the
    /// new proof. Items stored with `.biometryCurrentSet` were bound to the old enrolment and are
    /// invalidated (``VaultError/accessControlInvalidated``), as on a keychain when the enrolled
    /// biometrics change.
    /// - Parameters:
    ///   - old: The current proof.
    ///   - new: The new proof, of the same factor.
    ///   - keyDerivation: Argon2id costs for a new passphrase; by default the old ones.
    /// - Throws: ``VaultError/invalidCredentials`` when `old` is wrong, ``VaultError/notFound(_:)``
    ///   when the factor is not enrolled, ``VaultError/invalidArgument(_:)`` for a different factor,
    ///   ``VaultError/accessDenied(_:)`` without a full-access unlock (every item must be re-sealed),
    ///   ``VaultError/locked`` when a class's keys are not held, ``VaultError/unavailableOnThisDevice``
    ///   for items bound to another device.
    public func changeFactor(
        from old: AuthenticationProof, to new: AuthenticationProof, keyDerivation: KeyDerivation? = nil
    ) throws {
        try Self.translatingErrors {
            guard old.factor == new.factor else {
                throw VaultError.invalidArgument("both proofs must be of the same factor")
            }
            let records = try read { store, keys in try FactorStore.records(in: store, keys: keys, vaultID: vaultID) }
            guard let current = records[old.factor] else {
                throw VaultError.notFound("an enrolled \(old.factor.rawValue) factor")
            }
            let unlocked = try current.open(
                with: old, vaultID: vaultID, allowsInsecurePermissions: configuration.allowsInsecurePermissions)
            let costs =
                keyDerivation
                ?? .custom(opsLimit: current.parameters.opsLimit, memLimitBytes: current.parameters.memLimitBytes)
            let record = try FactorRecord.enroll(
                new, keyDerivation: new.factor == .passcode ? costs : .moderate, vaultID: vaultID,
                allowsInsecurePermissions: configuration.allowsInsecurePermissions)
            let device = try deviceSecret(creating: false)
            try write { transaction in
                guard transaction.keys.masterKey != nil else {
                    throw VaultError.accessDenied("changing a factor needs a full-access unlock")
                }
                try FactorStore.store(record, in: &transaction)
                try resealShares(
                    of: old.factor, from: unlocked.classKeys, to: record.classPublicKey, device: device,
                    in: &transaction)
            }
            session.withLock { $0.proofs = [:] }
        }
    }

    /// Re-seals `factor`'s class-key shares of every access-controlled item to `newPublicKey`.
    private func resealShares(
        of factor: AuthenticationFactor, from old: AnonymousSealedBox.KeyPair, to newPublicKey: [UInt8],
        device: DeviceSecret?, in transaction: inout RecordTransaction
    ) throws {
        let keys = transaction.keys
        let groups = try candidateGroups(in: transaction.records, keys: keys)
        for kind in [RecordKind.keyValueItem, .token] {
            for row in try transaction.rows(kind: kind) {
                let (envelope, domain) = try openItem(row, groups: groups, keys: keys)
                guard case .accessControlled(let secret) = envelope.content, secret.hasClassShare(for: factor) else {
                    continue
                }
                let resealed = ItemEnvelope(
                    name: envelope.name, metadata: envelope.metadata, terms: envelope.terms,
                    content: .accessControlled(try secret.resealing(factor, from: old, to: newPublicKey)))
                try transaction.replace(
                    row,
                    with: RecordRow.seal(
                        resealed.bytes, id: row.id, kind: row.kind, lookup: row.lookup, domainID: row.domainID,
                        policyCode: row.policyCode, version: row.version + 1, scope: row.scope,
                        key: keys.key(for: domain, device: device), vaultID: vaultID))
            }
        }
    }

    /// The enrolled factors.
    ///
    /// - Returns: Which factors are enrolled.
    /// - Throws: ``VaultError/locked``.
    public func enrolledFactors() throws -> Set<AuthenticationFactor> {
        try read { records, keys in Set(try FactorStore.records(in: records, keys: keys, vaultID: vaultID).keys) }
    }
}
