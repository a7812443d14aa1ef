import Foundation

/// libsodium's and the IETF draft's published test vectors, from `Resources/KnownAnswerVectors.json`.
public struct KnownAnswerVectors: Decodable, Sendable {
    /// An XChaCha20-Poly1305 vector; `combined` is ciphertext followed by tag.
    public struct AEAD: Decodable, Sendable {
        public let source: String
        public let key, nonce, ad, plaintext, combined: String
    }

    /// An Argon2id (crypto_pwhash) vector.
    public struct Argon2: Decodable, Sendable {
        public let source: String
        public let password, salt, hash: String
        public let opsLimit, memLimitBytes: Int
    }

    /// A BLAKE2b vector; an empty key means unkeyed.
    public struct BLAKE2: Decodable, Sendable {
        public let source: String
        public let key, message, digest: String
    }

    /// A crypto_kdf vector.
    public struct KDF: Decodable, Sendable {
        public let source: String
        public let masterKey, context, subkey: String
        public let subkeyID: UInt64
    }

    public let xchacha20poly1305: [AEAD]
    public let argon2id: [Argon2]
    public let blake2bKeyed: [BLAKE2]
    public let kdf: [KDF]

    /// The vectors shipped with the test support target.
    public static let shipped: KnownAnswerVectors = {
        guard
            let url = Bundle.module.url(
                forResource: "KnownAnswerVectors", withExtension: "json", subdirectory: "Resources"),
            let data = try? Data(contentsOf: url),
            let vectors = try? JSONDecoder().decode(KnownAnswerVectors.self, from: data)
        else { fatalError("KnownAnswerVectors.json is missing or malformed") }
        return vectors
    }()
}

extension Array where Element == UInt8 {
    /// Bytes from a hex string (test vectors).
    ///
    /// - Parameter hex: An even number of hex digits.
    public init(hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        self = bytes
    }

    /// Lower-case hex of the bytes.
    public var hex: String { map { String(format: "%02x", $0) }.joined() }
}
