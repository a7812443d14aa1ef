/// Base64url without padding (RFC 7515 §2), strictly: the JWS parts that decide a signature check
/// are read with this, never with the lenient decoding ``JWT`` reads claims with.
enum Base64URL {
    /// Whether `text` is base64url: not empty, only `A-Z a-z 0-9 - _` (no `=`, `+`, `/` or
    /// whitespace), and a length base64 can have.
    ///
    /// - Parameter text: The text's UTF-8.
    /// - Returns: `true` for base64url.
    static func isEncoded(_ text: ArraySlice<UInt8>) -> Bool {
        !text.isEmpty && text.count % 4 != 1 && text.allSatisfy(isAlphabet)
    }

    /// The bytes `text` encodes, or `nil` when it is not base64url (``isEncoded(_:)``).
    ///
    /// - Parameter text: The text's UTF-8.
    /// - Returns: The decoded bytes.
    static func decode(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        guard isEncoded(text) else { return nil }
        return text.withUnsafeBufferPointer { LazyJSONObject.base64URLDecoded($0).map(Array.init) }
    }

    /// The bytes `text` encodes, or `nil` when it is not base64url (``isEncoded(_:)``).
    ///
    /// - Parameter text: The text.
    /// - Returns: The decoded bytes.
    static func decode(_ text: String) -> [UInt8]? {
        decode(ArraySlice(text.utf8))
    }

    private static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }
}
