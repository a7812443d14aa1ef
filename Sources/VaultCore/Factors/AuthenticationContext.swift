import Foundation

/// Supplies the proofs that reading an access-controlled item needs, like `LAContext` on Apple
/// platforms.
///
/// The vault asks for a proof only when a read needs one. A proof accepted through a context may be
/// reused for ``reuseWindow`` without asking again (the vault keeps the unlocked factor key that
/// long, and forgets it on `lock()` or when the unlock session ends).
public protocol AuthenticationContext: Sendable {
    /// Identifies the context for its reuse window.
    var id: UUID { get }
    /// How long an accepted proof may be reused; `.zero` asks for every read.
    var reuseWindow: Duration { get }
    /// The proof for `factor`, or `nil` when this context cannot give one (the read then fails
    /// with ``VaultError/interactionRequired`` unless another factor satisfies it).
    ///
    /// - Parameters:
    ///   - factor: The factor needed.
    ///   - prompt: The caller's reason, to show the user.
    /// - Returns: The proof, or `nil`.
    /// - Throws: What the context throws (a cancelled prompt, say); it reaches the caller.
    func proof(for factor: AuthenticationFactor, prompt: String?) throws -> AuthenticationProof?
}

/// Re-entry of the enrolled passphrase: proves ``AuthenticationFactor/passcode``.
public final class PassphraseAuthenticationContext: AuthenticationContext {
    /// This context's identity.
    public let id = UUID()
    /// How long an accepted passphrase may be reused.
    public let reuseWindow: Duration
    private let provider: @Sendable (String?) throws -> Passphrase?

    /// A context that asks `provider` (a terminal prompt, say) each time a proof is needed.
    ///
    /// - Parameters:
    ///   - reuseWindow: How long an accepted proof may be reused; `.zero` by default.
    ///   - provider: Given the prompt, returns the passphrase or `nil` to decline.
    public init(reuseWindow: Duration = .zero, provider: @escaping @Sendable (_ prompt: String?) throws -> Passphrase?)
    {
        self.reuseWindow = reuseWindow
        self.provider = provider
    }

    /// A context holding a passphrase already entered.
    ///
    /// - Parameters:
    ///   - passphrase: The passphrase.
    ///   - reuseWindow: How long an accepted proof may be reused; `.zero` by default.
    public convenience init(passphrase: Passphrase, reuseWindow: Duration = .zero) {
        self.init(reuseWindow: reuseWindow) { _ in passphrase }
    }

    /// The passphrase, for the passcode factor only.
    public func proof(for factor: AuthenticationFactor, prompt: String?) throws -> AuthenticationProof? {
        guard factor == .passcode, let passphrase = try provider(prompt) else { return nil }
        return .passphrase(passphrase)
    }
}

/// A second factor held outside the vault, as a key file: proves ``AuthenticationFactor/secondFactor``.
public final class KeyFileAuthenticationContext: AuthenticationContext {
    /// This context's identity.
    public let id = UUID()
    /// How long an accepted proof may be reused.
    public let reuseWindow: Duration
    /// The key file presented.
    public let keyFile: URL

    /// A context presenting `keyFile`.
    ///
    /// - Parameters:
    ///   - keyFile: The enrolled key file (on a token, a mounted device, ...).
    ///   - reuseWindow: How long an accepted proof may be reused; `.zero` by default.
    public init(keyFile: URL, reuseWindow: Duration = .zero) {
        self.keyFile = keyFile
        self.reuseWindow = reuseWindow
    }

    /// The key file, for the second factor only.
    public func proof(for factor: AuthenticationFactor, prompt: String?) throws -> AuthenticationProof? {
        factor == .secondFactor ? .keyFile(keyFile) : nil
    }
}

/// Several contexts together, for items that need more than one factor (`.and`).
public final class CombinedAuthenticationContext: AuthenticationContext {
    /// This context's identity.
    public let id = UUID()
    /// The shortest reuse window of the parts.
    public let reuseWindow: Duration
    private let contexts: [any AuthenticationContext]

    /// Combines `contexts`; the first that can prove a factor does.
    ///
    /// - Parameter contexts: The parts.
    public init(_ contexts: [any AuthenticationContext]) {
        self.contexts = contexts
        reuseWindow = contexts.map(\.reuseWindow).min() ?? .zero
    }

    /// The first proof any part gives for `factor`.
    public func proof(for factor: AuthenticationFactor, prompt: String?) throws -> AuthenticationProof? {
        for context in contexts {
            if let proof = try context.proof(for: factor, prompt: prompt) { return proof }
        }
        return nil
    }
}
