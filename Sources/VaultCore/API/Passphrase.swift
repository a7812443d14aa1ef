import Foundation
import VaultCrypto

/// A passphrase held in guarded memory; its description never shows it.
///
/// Text passphrases are normalised to Unicode NFC before encoding as UTF-8, so the same words typed
/// through different input methods unlock the same vault. ``init(bytes:)`` takes bytes verbatim.
public struct Passphrase: Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The passphrase bytes, in guarded memory.
    public let secureBytes: SecureBytes

    /// A passphrase from text (NFC-normalised UTF-8).
    ///
    /// - Parameter string: The passphrase.
    public init(_ string: String) {
        secureBytes = SecureBytes(copying: string.precomposedStringWithCanonicalMapping.utf8)
    }

    /// A passphrase from a string literal (tests and examples).
    ///
    /// - Parameter value: The passphrase.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// A passphrase from raw bytes, as read from a terminal or a file. Wipe your own buffer after.
    ///
    /// - Parameter bytes: The passphrase bytes, used as they are.
    public init(bytes: some Collection<UInt8>) {
        secureBytes = SecureBytes(copying: bytes)
    }

    /// A passphrase already in secure memory; no copy is made.
    ///
    /// - Parameter secureBytes: The passphrase bytes.
    public init(secureBytes: SecureBytes) {
        self.secureBytes = secureBytes
    }

    /// Whether the passphrase has no bytes.
    public var isEmpty: Bool { secureBytes.count == 0 }

    /// Always `Passphrase(redacted)`.
    public var description: String { "Passphrase(redacted)" }
}
