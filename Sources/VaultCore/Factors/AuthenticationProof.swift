import Foundation

/// What proves a factor: the enrolled passphrase, or the enrolled key file. Its description never
/// shows the secret.
public struct AuthenticationProof: Sendable, CustomStringConvertible {
    let unlock: VaultUnlock

    /// A passphrase: proves the ``AuthenticationFactor/passcode`` factor.
    ///
    /// - Parameter passphrase: The enrolled passphrase.
    /// - Returns: The proof.
    public static func passphrase(_ passphrase: Passphrase) -> AuthenticationProof {
        AuthenticationProof(unlock: .passphrase(passphrase))
    }

    /// A key file: proves the ``AuthenticationFactor/secondFactor`` factor.
    ///
    /// - Parameter url: The enrolled key file.
    /// - Returns: The proof.
    public static func keyFile(_ url: URL) -> AuthenticationProof {
        AuthenticationProof(unlock: .keyFile(url))
    }

    /// The factor this proves.
    public var factor: AuthenticationFactor {
        if case .keyFile = unlock { return .secondFactor }
        return .passcode
    }

    /// The factor, never the secret.
    public var description: String { "AuthenticationProof(\(factor.rawValue))" }
}
