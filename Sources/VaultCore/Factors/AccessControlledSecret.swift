import VaultCrypto

/// A value sealed under an item key that only factor proofs can rebuild.
///
/// Each term of the requirement gets a random 32-byte share, sealed (`crypto_box_seal`) to every
/// target's public key; the item key is BLAKE2b over all shares. So any target opens its term,
/// and every term is needed. Storing needs only public keys; reading needs the proofs.
struct AccessControlledSecret {
    struct SealedShare {
        let factor: AuthenticationFactor
        /// Empty unless bound to one enrolment.
        let enrollmentID: [UInt8]
        let sealed: [UInt8]
    }

    let terms: [[SealedShare]]
    let sealedValue: [UInt8]

    static func seal(
        _ value: [UInt8], requirement: AccessRequirement, factors: [AuthenticationFactor: FactorRecord],
        associatedData: [UInt8]
    ) throws -> AccessControlledSecret {
        var shares: [SecureBytes] = []
        var terms: [[SealedShare]] = []
        for term in requirement.terms {
            let share = SecureBytes.random(count: 32)
            shares.append(share)
            terms.append(
                try term.map { target in
                    let record = factors[target.factor]!
                    return SealedShare(
                        factor: target.factor, enrollmentID: target.bindsEnrollment ? record.enrollmentID : [],
                        sealed: try AnonymousSealedBox.seal(
                            share, to: target.bindsEnrollment ? record.enrollmentPublicKey : record.classPublicKey))
                })
        }
        let box = try XChaCha20Poly1305.seal(value, using: itemKey(shares), authenticating: associatedData)
        return AccessControlledSecret(terms: terms, sealedValue: box.combined)
    }

    /// Rebuilds the item key from proofs and opens the value.
    ///
    /// - Parameter keys: The unlocked keys of a factor, or `nil` when no proof is available.
    /// - Throws: ``VaultError/interactionRequired`` when a term has no proof,
    ///   ``VaultError/accessControlInvalidated`` when the only proof is for a changed enrolment.
    func open(associatedData: [UInt8], keys: (AuthenticationFactor) throws -> FactorRecord.Keys?) throws -> [UInt8] {
        var shares: [SecureBytes] = []
        for term in terms {
            var share: SecureBytes?
            var invalidated = false
            for target in term {
                guard let unlocked = try keys(target.factor) else { continue }
                let pair: AnonymousSealedBox.KeyPair
                if target.enrollmentID.isEmpty {
                    pair = unlocked.classKeys
                } else {
                    guard safeCompare(target.enrollmentID, unlocked.enrollmentID) else {
                        invalidated = true
                        continue
                    }
                    pair = unlocked.enrollmentKeys
                }
                do {
                    share = try AnonymousSealedBox.open(target.sealed, with: pair)
                } catch {
                    throw VaultError.integrity("an access-controlled share does not open with its factor")
                }
                break
            }
            guard let share else {
                throw invalidated ? VaultError.accessControlInvalidated : VaultError.interactionRequired
            }
            shares.append(share)
        }
        do {
            return try XChaCha20Poly1305.open(
                XChaCha20Poly1305.SealedBox(combined: sealedValue), using: Self.itemKey(shares),
                authenticating: associatedData)
        } catch {
            throw VaultError.integrity("an access-controlled value failed authentication")
        }
    }

    /// Whether a share is sealed to `factor`'s class key (not bound to one enrolment).
    func hasClassShare(for factor: AuthenticationFactor) -> Bool {
        terms.contains { $0.contains { $0.factor == factor && $0.enrollmentID.isEmpty } }
    }

    /// The same secret with `factor`'s class-key shares opened with `old` and sealed to `newPublicKey`:
    /// a changed factor's new proof reads what the old one did, and only the new key pair is used for
    /// anything stored afterwards. Shares bound to the old enrolment are kept, and stay invalidated.
    func resealing(_ factor: AuthenticationFactor, from old: AnonymousSealedBox.KeyPair, to newPublicKey: [UInt8])
        throws -> AccessControlledSecret
    {
        let resealed = try terms.map { term in
            try term.map { share -> SealedShare in
                guard share.factor == factor, share.enrollmentID.isEmpty else { return share }
                let opened: SecureBytes
                do {
                    opened = try AnonymousSealedBox.open(share.sealed, with: old)
                } catch {
                    throw VaultError.integrity("an access-controlled share does not open with its factor")
                }
                return SealedShare(
                    factor: factor, enrollmentID: [], sealed: try AnonymousSealedBox.seal(opened, to: newPublicKey))
            }
        }
        return AccessControlledSecret(terms: resealed, sealedValue: sealedValue)
    }

    private static func itemKey(_ shares: [SecureBytes]) -> SymmetricKey {
        let all = SecureBytes(count: shares.count * 32) { out in
            for (index, share) in shares.enumerated() {
                share.withUnsafeBytes {
                    UnsafeMutableRawBufferPointer(rebasing: out[index * 32..<(index + 1) * 32]).copyMemory(from: $0)
                }
            }
        }
        return BLAKE2b.hashSecret(all, outputByteCount: 32)
    }

    // MARK: Encoding

    func write(to writer: inout ByteWriter) {
        writer.append(UInt8(terms.count))
        for term in terms {
            writer.append(UInt8(term.count))
            for share in term {
                writer.append(share.factor.code)
                writer.append(lengthPrefixed: share.enrollmentID)
                writer.append(lengthPrefixed: share.sealed)
            }
        }
        writer.append(lengthPrefixed: sealedValue)
    }

    init(reading reader: inout ByteReader) throws {
        var terms: [[SealedShare]] = []
        for _ in 0..<(try reader.read(UInt8.self)) {
            var term: [SealedShare] = []
            for _ in 0..<(try reader.read(UInt8.self)) {
                guard let factor = AuthenticationFactor(code: try reader.read(UInt8.self)) else {
                    throw VaultError.integrity("an access-controlled item names an unknown factor")
                }
                term.append(
                    SealedShare(
                        factor: factor, enrollmentID: try reader.readLengthPrefixed(),
                        sealed: try reader.readLengthPrefixed()))
            }
            terms.append(term)
        }
        self.terms = terms
        sealedValue = try reader.readLengthPrefixed()
    }

    private init(terms: [[SealedShare]], sealedValue: [UInt8]) {
        self.terms = terms
        self.sealedValue = sealedValue
    }
}
