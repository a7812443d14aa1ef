import Foundation
import Locking
import VaultCrypto

/// A JSON object kept as the bytes it came in — a JWT part (base64url of the JSON) or the JSON
/// itself — and parsed on first access, then cached. Reading a stored token record therefore parses
/// no JSON until someone reads a claim. Safe to share between threads (the cache is behind a lock;
/// two first readers at once parse it once).
package final class LazyJSONObject: Sendable {
    /// How ``bytes`` hold the object. The raw values are the stored token record's tags for them.
    package enum Encoding: UInt8, Sendable {
        /// Base64url without padding of the JSON (a compact JWT's header or payload part).
        case base64URL = 1
        /// The JSON text, UTF-8.
        case json = 2
    }

    /// What parsing gave: the object, or that the bytes are not one.
    private enum Parsed {
        case object([String: JSONValue])
        case invalid
    }

    /// How ``bytes`` hold the object.
    package let encoding: Encoding
    /// The object as it came in.
    package let bytes: [UInt8]
    private let cache: Locked<Parsed?>

    /// An object parsed on first access.
    ///
    /// - Parameters:
    ///   - encoding: How `bytes` hold it.
    ///   - bytes: The object.
    package init(encoding: Encoding, bytes: [UInt8]) {
        self.encoding = encoding
        self.bytes = bytes
        cache = Locked(nil)
    }

    /// The object, parsed on first access; `nil` when the bytes are not a JSON object (or not
    /// base64url of one).
    package var object: [String: JSONValue]? {
        cache.withLock { cache in
            let parsed = cache ?? Self.parse(bytes, encoding)
            cache = parsed
            guard case .object(let object) = parsed else { return nil }
            return object
        }
    }

    private static func parse(_ bytes: [UInt8], _ encoding: Encoding) -> Parsed {
        let json: Data
        switch encoding {
        case .json: json = Data(bytes)
        case .base64URL:
            guard let decoded = bytes.withUnsafeBufferPointer(base64URLDecoded) else { return .invalid }
            json = decoded
        }
        return Self.object(json).map(Parsed.object) ?? .invalid
    }

    /// Decodes base64url (or base64) without padding, for the lazy parse of a stored JWT part: a
    /// table lookup per byte, where Foundation's decoder (after rewriting the text to base64) took
    /// about half of reading a stored token's claims. It takes everything ``JWT/init(_:)`` takes,
    /// ignoring the unused low bits of the last character.
    ///
    /// - Parameter bytes: The text.
    /// - Returns: The bytes, or `nil` for a character outside both alphabets (`=` included) or a
    ///   length base64 cannot have.
    package static func base64URLDecoded(_ bytes: UnsafeBufferPointer<UInt8>) -> Data? {
        guard bytes.count % 4 != 1 else { return nil }
        var complete = true
        let output = [UInt8](filling: bytes.count * 3 / 4) { output, count in
            base64Values.withUnsafeBufferPointer { values in
                var accumulator: UInt32 = 0
                var bits = 0
                for byte in bytes {
                    let value = values[Int(byte)]
                    guard value != 0xFF else {
                        complete = false
                        return
                    }
                    accumulator = accumulator &<< 6 | UInt32(value)
                    bits += 6
                    if bits >= 8 {
                        bits -= 8
                        output[count] = UInt8(truncatingIfNeeded: accumulator >> UInt32(bits))
                        count += 1
                    }
                }
            }
        }
        return complete ? Data(output) : nil
    }

    /// Each byte's 6-bit value in base64url and base64 (`-` and `+` are 62, `_` and `/` 63); 0xFF
    /// for the others.
    private static let base64Values: [UInt8] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt8(byte) - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt8(byte) - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt8(byte) - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"), UInt8(ascii: "+"): 62
        case UInt8(ascii: "_"), UInt8(ascii: "/"): 63
        default: 0xFF
        }
    }

    /// Parses a JSON object.
    ///
    /// - Parameter json: The JSON text.
    /// - Returns: The object, or `nil` when `json` is not a JSON object.
    static func object(_ json: Data) -> [String: JSONValue]? {
        guard case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: json) else { return nil }
        return object
    }

    /// Whether `bytes` may be what ``JWT``'s base64url decoding takes: not empty, every byte in the
    /// base64url alphabet or the base64 one (the decoder takes both), no padding, and a count that
    /// base64 can have (not 1 more than a multiple of 4). The cheap check a stored JWT part gets
    /// before it is kept for parsing later; it accepts every part ``JWT/init(_:)`` accepts.
    ///
    /// - Parameter bytes: The text.
    /// - Returns: Whether it may be base64url.
    package static func isBase64Shaped(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !bytes.isEmpty, bytes.count % 4 != 1 else { return false }
        // A table lookup per byte, no branch: JWT parts are a few hundred bytes, checked on every decode.
        return base64Alphabet.withUnsafeBufferPointer { alphabet in
            var all: UInt8 = 1
            for byte in bytes { all &= alphabet[Int(byte)] }
            return all == 1
        }
    }

    /// Whether `bytes` may be what ``JWT``'s base64url decoding takes (see the other overload).
    package static func isBase64Shaped(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer(isBase64Shaped)
    }

    /// 1 for each byte of the base64url and base64 alphabets, 0 for the others.
    private static let base64Alphabet: [UInt8] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "+"),
            UInt8(ascii: "/"):
            1
        default: 0
        }
    }
}
