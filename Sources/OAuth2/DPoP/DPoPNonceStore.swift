import Foundation
import Locking

/// The latest `DPoP-Nonce` each server gave (RFC 9449 §8, §9), by origin, for the next proofs to
/// that server. Thread-safe.
///
/// A server that requires nonces answers a proof without one (or with a stale one) with
/// `use_dpop_nonce` and a fresh nonce; a client that remembers it sends the next proofs with it
/// and is not refused again. Nonces are not secrets, but they are never shown either.
public final class DPoPNonceStore: Sendable, CustomStringConvertible, CustomReflectable {
    /// The store every ``OAuth2Client`` uses unless given another one.
    public static let shared = DPoPNonceStore()

    private let nonces = Locked<[String: String]>([:])

    /// An empty store.
    public init() {}

    /// The latest nonce of the server `url` is on.
    ///
    /// - Parameter url: A URL on the server.
    /// - Returns: The nonce, or `nil` when that server gave none.
    public func nonce(for url: URL) -> String? {
        let origin = OAuth2Client.TransportPolicy.origin(of: url)
        return nonces.withLock { $0[origin] }
    }

    /// Remembers a nonce of the server `url` is on, replacing the one before.
    ///
    /// - Parameters:
    ///   - nonce: The `DPoP-Nonce` header's value.
    ///   - url: The URL it came from.
    public func remember(_ nonce: String, for url: URL) {
        let origin = OAuth2Client.TransportPolicy.origin(of: url)
        nonces.withLock { $0[origin] = nonce }
    }

    /// How many servers it holds a nonce for; never a nonce.
    public var description: String { "DPoPNonceStore(\(nonces.withLock { $0.count }) servers)" }

    /// What `dump()` and debuggers show: how many servers, never a nonce.
    public var customMirror: Mirror {
        Mirror(self, children: ["servers": nonces.withLock { $0.count }], displayStyle: .class)
    }
}
