/// Base64url without padding (RFC 7515 §2), strictly: the JWS parts that decide a signature check
/// are read with this, never with the lenient decoding ``JWT`` reads claims with.
enum Base64URL {
    /// The bytes `text` encodes, or `nil` for an empty text, a character outside `A-Z a-z 0-9 - _`
    /// (no `=`, `+`, `/` or whitespace) or a length base64 cannot have.
    ///
    /// - Parameter text: The encoded text.
    /// - Returns: The decoded bytes.
    static func decode(_ text: Substring) -> [UInt8]? {
        var text = text
        return text.withUTF8 { bytes in
            guard !bytes.isEmpty, bytes.allSatisfy(isAlphabet) else { return nil }
            return LazyJSONObject.base64URLDecoded(bytes).map(Array.init)
        }
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
