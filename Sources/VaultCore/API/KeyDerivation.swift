import VaultCrypto

/// Argon2id cost for a passphrase slot: libsodium's presets, or explicit values within bounds.
public enum KeyDerivation: Sendable, Hashable {
    /// 2 passes, 64 MiB: about 70 ms on a 2-core server.
    case interactive
    /// 3 passes, 256 MiB: about 0.4 s. The default.
    case moderate
    /// 4 passes, 1 GiB: about 2.7 s.
    case sensitive
    /// Explicit costs, accepted only within ``minimum`` and ``maximum``.
    case custom(opsLimit: Int, memLimitBytes: Int)

    /// The floor: OWASP's minimum for Argon2id (2 passes, 19 MiB). Cheaper slots are refused on
    /// create and on open, so a file cannot be edited down to a cheap derivation.
    public static let minimum = KeyDerivation.custom(opsLimit: 2, memLimitBytes: 19 * 1024 * 1024)
    /// The ceiling (16 passes, 1 GiB): a file asking for more is refused before Argon2 allocates
    /// anything, so a hostile file cannot exhaust memory or time.
    public static let maximum = KeyDerivation.custom(opsLimit: 16, memLimitBytes: 1024 * 1024 * 1024)

    /// The Argon2id parameters this stands for.
    public var parameters: Argon2id.Parameters {
        switch self {
        case .interactive: .interactive
        case .moderate: .moderate
        case .sensitive: .sensitive
        case .custom(let ops, let mem): Argon2id.Parameters(opsLimit: ops, memLimitBytes: mem)
        }
    }

    /// Checks `parameters` against ``minimum`` and ``maximum``.
    ///
    /// - Parameter parameters: The costs, as given or as read from a file.
    /// - Throws: ``VaultError/unsupportedFormat(_:)`` when outside the bounds.
    static func checkBounds(_ parameters: Argon2id.Parameters) throws {
        let low = minimum.parameters
        let high = maximum.parameters
        guard parameters.opsLimit >= low.opsLimit, parameters.memLimitBytes >= low.memLimitBytes,
            parameters.opsLimit <= high.opsLimit, parameters.memLimitBytes <= high.memLimitBytes
        else {
            throw VaultError.unsupportedFormat(
                "KDF parameters \(parameters) are outside the accepted bounds (\(low) to \(high))")
        }
    }
}
