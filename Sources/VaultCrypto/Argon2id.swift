internal import CSodium

/// Argon2id password hashing for key derivation (libsodium's `crypto_pwhash`, version 1.3).
public enum Argon2id {
    /// The salt length: 16 bytes.
    public static let saltByteCount = Int(crypto_pwhash_argon2id_SALTBYTES)

    /// Argon2id cost parameters, stored beside every passphrase-derived key.
    public struct Parameters: Sendable, Hashable, Codable, CustomStringConvertible {
        /// Passes over memory (libsodium's `opslimit`).
        public let opsLimit: Int
        /// Memory in bytes (libsodium's `memlimit`).
        public let memLimitBytes: Int

        /// Parameters with the given costs. Not checked here: see ``validate()``.
        ///
        /// - Parameters:
        ///   - opsLimit: Passes over memory.
        ///   - memLimitBytes: Memory in bytes.
        public init(opsLimit: Int, memLimitBytes: Int) {
            self.opsLimit = opsLimit
            self.memLimitBytes = memLimitBytes
        }

        /// libsodium's INTERACTIVE preset (2 passes, 64 MiB).
        public static let interactive = Parameters(
            opsLimit: Int(crypto_pwhash_argon2id_OPSLIMIT_INTERACTIVE),
            memLimitBytes: Int(crypto_pwhash_argon2id_MEMLIMIT_INTERACTIVE))
        /// libsodium's MODERATE preset (3 passes, 256 MiB).
        public static let moderate = Parameters(
            opsLimit: Int(crypto_pwhash_argon2id_OPSLIMIT_MODERATE),
            memLimitBytes: Int(crypto_pwhash_argon2id_MEMLIMIT_MODERATE))
        /// libsodium's SENSITIVE preset (4 passes, 1 GiB).
        public static let sensitive = Parameters(
            opsLimit: Int(crypto_pwhash_argon2id_OPSLIMIT_SENSITIVE),
            memLimitBytes: Int(crypto_pwhash_argon2id_MEMLIMIT_SENSITIVE))

        /// Checks the parameters against libsodium's own limits for Argon2id.
        ///
        /// - Throws: ``CryptoError/invalidParameters(_:)`` when outside them.
        public func validate() throws {
            guard opsLimit >= Int(crypto_pwhash_argon2id_OPSLIMIT_MIN),
                UInt64(opsLimit) <= UInt64(crypto_pwhash_argon2id_OPSLIMIT_MAX)
            else { throw CryptoError.invalidParameters("Argon2id opsLimit \(opsLimit)") }
            guard memLimitBytes >= Int(crypto_pwhash_argon2id_MEMLIMIT_MIN),
                memLimitBytes <= crypto_pwhash_argon2id_memlimit_max()
            else { throw CryptoError.invalidParameters("Argon2id memLimitBytes \(memLimitBytes)") }
        }

        /// The costs in words, e.g. `Argon2id(ops: 3, mem: 256 MiB)`.
        public var description: String {
            "Argon2id(ops: \(opsLimit), mem: \(memLimitBytes / 1024) KiB)"
        }
    }

    /// Derives a key from a password.
    ///
    /// Wraps `crypto_pwhash` with `crypto_pwhash_ALG_ARGON2ID13`.
    /// - Parameters:
    ///   - password: The password bytes, in secure memory.
    ///   - salt: A random 16-byte salt.
    ///   - parameters: The costs; checked before any memory is allocated.
    ///   - outputByteCount: The key length; 32 by default.
    /// - Returns: The derived key.
    /// - Throws: ``CryptoError/invalidLength(_:)`` for a bad salt,
    ///   ``CryptoError/invalidParameters(_:)`` for costs outside libsodium's limits,
    ///   ``CryptoError/outOfMemory`` when the memory cannot be had.
    public static func deriveKey(
        from password: SecureBytes, salt: [UInt8], parameters: Parameters, outputByteCount: Int = 32
    ) throws -> SymmetricKey {
        SodiumRuntime.ensureInitialized()
        guard salt.count == saltByteCount else {
            throw CryptoError.invalidLength("an Argon2id salt is \(saltByteCount) bytes")
        }
        try parameters.validate()
        let derived = try SecureBytes(count: outputByteCount) { out in
            let empty: [CChar] = [0]  // Argon2 wants a valid pointer even for an empty password
            let status = password.withUnsafeBytes { pw in
                empty.withUnsafeBufferPointer { fallback in
                    crypto_pwhash(
                        out.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(outputByteCount),
                        pw.baseAddress?.assumingMemoryBound(to: CChar.self) ?? fallback.baseAddress!,
                        UInt64(pw.count), salt, UInt64(parameters.opsLimit), parameters.memLimitBytes,
                        crypto_pwhash_ALG_ARGON2ID13)
                }
            }
            guard status == 0 else { throw CryptoError.outOfMemory }
        }
        return SymmetricKey(secureBytes: derived)
    }
}
