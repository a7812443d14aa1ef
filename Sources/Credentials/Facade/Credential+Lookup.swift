import Foundation
import OAuth2
import VaultCore

extension Credential {
    /// Where tokens are kept: in memory until the app assigns a storage (or calls ``use(_:)``).
    public static var tokenStorage: any TokenStorage {
        get { CredentialCoordinator.shared.storage }
        set { CredentialCoordinator.shared.storage = newValue }
    }

    /// Keeps tokens in `vault` from now on.
    ///
    /// - Parameter vault: An unlocked vault.
    /// - Throws: ``CredentialError/storage(_:)`` when it is locked.
    public static func use(_ vault: Vault) throws {
        tokenStorage = try VaultTokenStorage(vault: vault)
    }

    /// Stores a new token. The first token stored into an empty storage becomes the default, in the
    /// same transaction. Storing needs no proof, whatever the access control.
    ///
    /// - Parameters:
    ///   - token: The token; its id must not be stored yet.
    ///   - tags: The app's tags (searchable with ``find(where:prompt:authenticationContext:)``).
    ///   - security: Accessibility, access group, access control, and a context for reading it back.
    /// - Returns: The credential.
    /// - Throws: ``CredentialError/alreadyExists(_:)``, ``CredentialError/invalidSecurityOptions(_:)``,
    ///   ``CredentialError/storage(_:)`` (with ``VaultError/unsupportedPolicy(_:)`` for a policy
    ///   the vault cannot enforce).
    @discardableResult
    public static func store(
        _ token: Token, tags: [String: String] = [:], security: [Credential.Security] = Credential.Security.standard
    ) throws -> Credential {
        let storage = tokenStorage
        let (policy, context) = try Security.resolve(security)
        let metadata = Token.Metadata(token: token, tags: tags)
        let becameDefault: Bool
        var copy: SealedRecordCopy?
        let vaultStorage = storage as? VaultTokenStorage
        let generation = vaultStorage?.vault.keyGeneration
        if let vaultStorage {
            (becameDefault, copy) = try vaultStorage.add(
                token: token, metadata: metadata, policy: policy, copyFor: generation)
        } else {
            becameDefault = try storage.add(token: token, metadata: metadata, security: security)
        }
        let credential = CredentialCoordinator.shared.instance(
            token: token, metadata: metadata, storage: storage, context: context, generation: generation, copy: copy)
        if becameDefault { CredentialCoordinator.shared.postDefaultChanged(credential) }
        return credential
    }

    /// The default credential. Reading gives `nil` when there is none, it cannot be read without
    /// a proof, or the vault was unlocked through a key slot scoped to access groups (the default is
    /// vault-wide, so such an unlock neither reads nor sets it); setting `nil` clears the default but
    /// keeps the token. Use ``setDefault(_:)`` to see errors.
    public static var `default`: Credential? {
        get { try? defaultCredential() }
        set { try? setDefault(newValue) }
    }

    /// The default credential, with errors.
    ///
    /// - Parameters:
    ///   - prompt: The reason shown by a prompting context.
    ///   - authenticationContext: Proofs for an access-controlled default.
    /// - Returns: The default, or `nil` when there is none.
    /// - Throws: ``CredentialError/storage(_:)``.
    public static func defaultCredential(
        prompt: String? = nil, authenticationContext: (any AuthenticationContext)? = nil
    ) throws -> Credential? {
        guard let id = try tokenStorage.defaultTokenID() else { return nil }
        return try with(id: id, prompt: prompt, authenticationContext: authenticationContext)
    }

    /// Makes `credential` the default, or clears the default with `nil` (the token stays stored).
    /// Posts `.defaultCredentialChanged` only when the default really changes.
    ///
    /// - Parameter credential: A stored credential, or `nil`.
    /// - Throws: ``CredentialError/removed(_:)``, ``CredentialError/notFound(_:)``,
    ///   ``CredentialError/storage(_:)``.
    public static func setDefault(_ credential: Credential?) throws {
        if let credential { _ = try credential.checked { $0 } }
        let storage = credential?.storage ?? tokenStorage
        let previous = try storage.defaultTokenID()
        guard previous != credential?.id else { return }
        try storage.setDefaultTokenID(credential?.id)
        CredentialCoordinator.shared.postDefaultChanged(credential)
    }

    /// Every stored token id (empty when the storage cannot be read).
    public static var allIDs: [String] { (try? tokenStorage.allIDs()) ?? [] }

    /// The credential with `id`, or `nil` when no such token is stored.
    ///
    /// An instance this process already has is returned as it is while its token can still be
    /// read; once locking wiped it, the token is read again, with `authenticationContext` (which
    /// then becomes the credential's context) or else the credential's own.
    /// - Parameters:
    ///   - id: The token id.
    ///   - prompt: The reason shown by a prompting context.
    ///   - authenticationContext: Proofs for an access-controlled token.
    /// - Returns: The one instance for that id.
    /// - Throws: ``CredentialError/storage(_:)`` (``VaultError/interactionRequired`` without a proof,
    ///   ``VaultError/locked`` when the vault or the token's class is locked).
    public static func with(
        id: String, prompt: String? = nil, authenticationContext: (any AuthenticationContext)? = nil
    ) throws -> Credential? {
        let storage = tokenStorage
        if let existing = CredentialCoordinator.shared.existing(id, in: storage) {
            try existing.ensureReadable(prompt: prompt, context: authenticationContext)
            return existing
        }
        let generation = (storage as? VaultTokenStorage)?.vault.keyGeneration  // before the read
        // Token and metadata from one read: on a server, one round trip instead of two.
        guard let stored = try storage.storedToken(id: id, prompt: prompt, authenticationContext: authenticationContext)
        else { return nil }
        return CredentialCoordinator.shared.instance(
            token: stored.token, metadata: stored.metadata, storage: storage, context: authenticationContext,
            generation: generation, copy: stored.copy)
    }

    /// The fewest tokens ``find(where:prompt:authenticationContext:)`` gives a core of its own, so
    /// that the filter of a small storage, a fraction of a millisecond, stays on the calling thread.
    private static let findSlice = 1_024

    /// The credentials whose metadata (id, tags, ID-token claims) matches `expression`.
    ///
    /// Filtering needs no proof. Opening each match's token may: a match that cannot be opened
    /// fails the whole call (``VaultError/interactionRequired``), never gives a shorter list.
    /// Instances this process already has are returned as they are while their tokens can still be
    /// read, and read again (with `authenticationContext`) once locking wiped them.
    ///
    /// Over thousands of tokens the filter runs on every core, each taking a share of the tokens:
    /// `expression` may then be called on several threads at once and in no particular order. The
    /// matches keep the storage's order.
    /// - Parameters:
    ///   - expression: The filter.
    ///   - prompt: The reason shown by a prompting context.
    ///   - authenticationContext: Proofs for access-controlled matches.
    /// - Returns: The matching credentials.
    /// - Throws: ``CredentialError/storage(_:)``.
    // One parameter group a line, as the public API is documented, so the signature stays greppable.
    // swift-format-ignore
    public static func find(where expression: @Sendable (Token.Metadata) -> Bool, prompt: String? = nil,
                            authenticationContext: (any AuthenticationContext)? = nil) throws -> [Credential] {
        let storage = tokenStorage
        return try credentials(
            for: storage.allMetadata().concurrentFilter(minimumSlice: findSlice, expression), in: storage,
            prompt: prompt, context: authenticationContext)
    }

    /// The credentials carrying every one of `tags` (all credentials for none).
    ///
    /// A vault storage answers from its index: only the matching records are opened, however many
    /// tokens it holds. Opening a match may need a proof, as with ``find(where:prompt:authenticationContext:)``.
    /// - Parameters:
    ///   - tags: The tags to match, each with its value.
    ///   - prompt: The reason shown by a prompting context.
    ///   - authenticationContext: Proofs for access-controlled matches.
    /// - Returns: The matching credentials.
    /// - Throws: ``CredentialError/storage(_:)``.
    // swift-format-ignore
    public static func find(tags: [String: String], prompt: String? = nil,
                            authenticationContext: (any AuthenticationContext)? = nil) throws -> [Credential] {
        let storage = tokenStorage
        return try credentials(
            for: storage.metadata(taggedWith: tags), in: storage, prompt: prompt, context: authenticationContext)
    }

    /// The credentials whose ID-token claim `claim` equals `value`: a string claim that is `value`,
    /// a number or boolean written as `value`, or an array with such an element.
    ///
    /// A vault storage answers from its index for `sub`, `email` and `preferred_username`
    /// (``Token/Metadata/indexedClaims``), opening only the matches; other claims are compared in
    /// every token's metadata.
    /// - Parameters:
    ///   - claim: The claim's name.
    ///   - value: The value, as text.
    ///   - prompt: The reason shown by a prompting context.
    ///   - authenticationContext: Proofs for access-controlled matches.
    /// - Returns: The matching credentials.
    /// - Throws: ``CredentialError/storage(_:)``.
    // swift-format-ignore
    public static func find(claim: String, equals value: String, prompt: String? = nil,
                            authenticationContext: (any AuthenticationContext)? = nil) throws -> [Credential] {
        let storage = tokenStorage
        return try credentials(
            for: storage.metadata(claim: claim, equals: value), in: storage, prompt: prompt,
            context: authenticationContext)
    }

    /// The credentials whose claim `claim` equals `value`, as ``find(claim:equals:prompt:authenticationContext:)``
    /// finds them, among those whose ID token was verified when it arrived
    /// (``Token/Metadata/claimsVerified``): claims of a token imported from a raw response, or given
    /// as values, never match.
    ///
    /// Use it where the claim decides access (a lookup by `email` or `sub` for a user who signs
    /// in): a token stored with claims nobody checked cannot stand in for that user.
    /// - Parameters:
    ///   - claim: The claim's name.
    ///   - value: The value, as text.
    ///   - prompt: The reason shown by a prompting context.
    ///   - authenticationContext: Proofs for access-controlled matches.
    /// - Returns: The matching credentials.
    /// - Throws: ``CredentialError/storage(_:)``.
    // swift-format-ignore
    public static func find(verifiedClaim claim: String, equals value: String, prompt: String? = nil,
                            authenticationContext: (any AuthenticationContext)? = nil) throws -> [Credential] {
        let storage = tokenStorage
        return try credentials(
            for: storage.metadata(claim: claim, equals: value).filter(\.claimsVerified), in: storage, prompt: prompt,
            context: authenticationContext)
    }

    /// One credential per metadata: the instance this process has while its token is readable,
    /// else one loaded with `context`.
    private static func credentials(
        for matches: [Token.Metadata], in storage: any TokenStorage, prompt: String?,
        context: (any AuthenticationContext)?
    ) throws -> [Credential] {
        try matches.map { metadata in
            if let existing = CredentialCoordinator.shared.existing(metadata.id, in: storage) {
                try existing.ensureReadable(prompt: prompt, context: context)
                return existing
            }
            return try load(metadata, from: storage, prompt: prompt, context: context)
        }
    }

    /// How long before expiry ``refreshIfNeeded(graceInterval:)`` refreshes: 300 s by default.
    public static var refreshGraceInterval: TimeInterval {
        get { CredentialCoordinator.shared.refreshGraceInterval }
        set { CredentialCoordinator.shared.refreshGraceInterval = newValue }
    }

    /// How long one request to the authorization server may take, for credentials made from now
    /// on: 30 s by default.
    public static var requestTimeout: TimeInterval {
        get { CredentialCoordinator.shared.requestTimeout }
        set { CredentialCoordinator.shared.requestTimeout = newValue }
    }

    private static func load(
        _ metadata: Token.Metadata, from storage: any TokenStorage, prompt: String?,
        context: (any AuthenticationContext)?
    ) throws -> Credential {
        let generation = (storage as? VaultTokenStorage)?.vault.keyGeneration  // before the read
        guard
            let token = try storage.token(id: metadata.id, prompt: prompt, authenticationContext: context)
        else { throw CredentialError.notFound(metadata.id) }
        return CredentialCoordinator.shared.instance(
            token: token, metadata: metadata, storage: storage, context: context, generation: generation)
    }
}
