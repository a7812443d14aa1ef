import Foundation

/// How an ``OAuth2Client`` asks for DPoP-bound tokens (RFC 9449) and makes its proofs. Sendable.
///
/// A client given options asks every grant (code exchange, device flow, client credentials,
/// password) for a token bound to a new ``DPoPKey``, and a token bound to a key is refreshed and
/// used with proofs of that key whether or not its client has options.
public struct DPoPOptions: Sendable {
    /// Where servers' nonces are remembered; ``DPoPNonceStore/shared`` by default.
    public var nonces: DPoPNonceStore
    /// The time for each proof's `iat`; `Date()` by default. Tests pass a fixed clock.
    public var clock: @Sendable () -> Date

    /// Options.
    ///
    /// - Parameters:
    ///   - nonces: Where nonces are remembered; the process-wide store by default.
    ///   - clock: The current time.
    public init(nonces: DPoPNonceStore = .shared, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.nonces = nonces
        self.clock = clock
    }
}
