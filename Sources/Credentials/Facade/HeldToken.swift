import Foundation
import OAuth2
import VaultCore
import VaultCrypto

/// The token a `Credential` keeps between reads, in a form that locking the vault makes
/// unreadable.
///
/// A token just stored in or read from a vault is kept as its record, as the vault sealed it
/// (``SealedRecordCopy``): nothing is sealed again, and the vault opens the record only while the
/// key generation it was read or written in lasts. Otherwise (a token the credential refreshed, an
/// access-controlled one) its strings (access, refresh and ID token, device secret, client secret)
/// and its DPoP key are sealed under the vault's cache key of that generation. Both need keys that
/// live in guarded memory and go with `lock()`, a new unlock and the end of the unlock session, so
/// every credential's copy becomes unreadable at that moment, without the vault having to find the
/// credentials. Guarded memory for each copy would not scale: a token is larger than a pooled block,
/// so each copy would take its own mappings with guard pages, and a `find` returning a few tens of
/// thousands of credentials would run the process out of mappings (65,530 by default on Linux).
/// A storage without keys (in memory) keeps its tokens in the clear anyway, and so does this copy.
struct HeldToken: Sendable {
    private enum Secrets: Sendable {
        case clear(Token)
        /// The secret strings, with the rest of the token to put them back into, and whether the ID
        /// token was verified: the mark goes with the ID token, which the sealed strings keep only
        /// as text.
        case sealed(CachedSecrets, redacted: Token, idTokenVerified: Bool)
        case record(SealedRecordCopy)
    }

    private let secrets: Secrets

    /// Keeps `token`, read in `generation` of `vault` (`nil` for a storage without a vault), as
    /// `copy` when there is one of that generation.
    ///
    /// - Parameter redacted: `token` without its secrets (``Token/withoutSecrets()``), which a copy
    ///   sealed under the cache key puts its secrets back into.
    /// - Returns: `nil` when that generation has already ended: the token must not be kept.
    init?(
        _ token: Token, redacted: Token, vault: Vault?, generation: VaultKeyGeneration?, copy: SealedRecordCopy? = nil
    ) {
        guard let vault else {
            secrets = .clear(token)
            return
        }
        guard let generation else { return nil }
        if let copy, copy.generation == generation {
            secrets = .record(copy)
            return
        }
        guard let sealed = vault.sealForCache(token.secretStrings, generation: generation) else { return nil }
        secrets = .sealed(sealed, redacted: redacted, idTokenVerified: token.idTokenVerified)
    }

    /// Whether ``token(in:)`` can still open the copy, without opening it.
    func isReadable(in vault: Vault?) -> Bool {
        switch secrets {
        case .clear: true
        case .sealed(let sealed, _, _): vault?.keyGeneration == sealed.generation
        case .record(let copy): vault?.keyGeneration == copy.generation
        }
    }

    /// The whole token, or `nil` once the keys of the generation it was read in were wiped.
    func token(in vault: Vault?) -> Token? {
        switch secrets {
        case .clear(let token): token
        case .sealed(let sealed, let redacted, let idTokenVerified):
            vault?.openFromCache(sealed).flatMap { redacted.withSecrets($0, idTokenVerified: idTokenVerified) }
        case .record(let copy):
            // The record seals the ID token's verified mark with the token.
            vault?.openSealedCopy(copy).flatMap { try? VaultTokenStorage.decode(Token.self, from: $0) }
        }
    }
}

extension Token {
    /// The strings that are secret, in a fixed order: access, refresh and ID token, device secret,
    /// client secret, and the DPoP key's seed (base64).
    fileprivate var secretStrings: [String?] {
        [
            accessToken, refreshToken, idToken?.rawValue, deviceSecret, context.clientSecret,
            dpopKey?.withSeed { Data($0).base64EncodedString() },
        ]
    }

    /// The same token with every secret removed: an empty access token, no refresh token, ID token,
    /// device secret, client secret or DPoP key.
    func withoutSecrets() -> Token {
        Token(
            id: id, tokenType: tokenType, accessToken: "", refreshToken: nil, idToken: nil, deviceSecret: nil,
            scope: scope, issuedAt: issuedAt, expiresIn: expiresIn,
            context: Context(issuer: context.issuer, clientID: context.clientID, scopes: context.scopes))
    }

    /// This secret-free token with the strings of ``secretStrings`` put back, its ID token marked
    /// verified when it was.
    fileprivate func withSecrets(_ secrets: [String?], idTokenVerified: Bool) -> Token? {
        guard secrets.count == 6, let accessToken = secrets[0] else { return nil }
        var dpopKey: DPoPKey?
        if let seed = secrets[5] {
            guard var bytes = Data(base64Encoded: seed).map(Array.init) else { return nil }
            defer { bytes.withUnsafeMutableBytes { SecureBytes.wipe($0) } }
            guard let key = try? DPoPKey(seed: SecureBytes(copying: bytes)) else { return nil }
            dpopKey = key
        }
        return Token(
            id: id, tokenType: tokenType, accessToken: accessToken, refreshToken: secrets[1],
            idToken: secrets[2].flatMap { try? JWT($0) }.map { idTokenVerified ? $0.markedVerified() : $0 },
            deviceSecret: secrets[3], scope: scope,
            issuedAt: issuedAt, expiresIn: expiresIn,
            context: Context(
                issuer: context.issuer, clientID: context.clientID, clientSecret: secrets[4], scopes: context.scopes),
            dpopKey: dpopKey)
    }
}
