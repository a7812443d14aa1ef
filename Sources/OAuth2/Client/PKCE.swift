import Foundation
import VaultCrypto

/// A PKCE verifier and its S256 challenge (RFC 7636).
public struct PKCE: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The secret verifier, sent when exchanging the code.
    public let verifier: String
    /// `BASE64URL(SHA256(verifier))`, sent with the authorization request.
    public let challenge: String
    /// Always `S256`.
    public let method = "S256"

    /// A fresh verifier of 32 random bytes (43 characters).
    public init() {
        self.init(verifier: Self.base64URL(SecureRandom.bytes(count: 32)))
    }

    /// A given verifier (for test vectors).
    ///
    /// - Parameter verifier: 43 to 128 unreserved characters.
    public init(verifier: String) {
        self.verifier = verifier
        challenge = Self.base64URL(SHA256.hash(Array(verifier.utf8)))
    }

    /// The challenge only; the verifier is secret.
    public var description: String { "PKCE(challenge: \(challenge), method: S256)" }

    /// What `dump()` and debuggers show: the challenge only.
    public var customMirror: Mirror {
        Mirror(self, children: ["challenge": challenge, "method": method], displayStyle: .struct)
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
