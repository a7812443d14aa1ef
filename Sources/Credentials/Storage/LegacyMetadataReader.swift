import OAuth2

/// Reads a token's metadata in the legacy JSON form (`{"v":1,"value":{"id":…,"tags":{…},"claims":{…}}}`)
/// without `JSONDecoder`, for the upgrade that re-encodes every token record of a vault: decoding
/// each record's claims into values and encoding them again took most of that upgrade's time.
///
/// It keeps the claims as the JSON text they are stored as, checked but not turned into values, and
/// decodes only the id, the tags and the claims the index files a token under. It answers only
/// where it knows `JSONDecoder`'s answer: for anything else — an escape in a field name, a `\u`
/// escape of a surrogate, a control character, a number with an exponent or of over 20 characters,
/// a trailing comma, an unknown or repeated field, a repeated tag, an indexed claim that is not a
/// string, a boolean, null or an array of those — it gives `nil`, and the caller decodes with
/// `JSONDecoder`, which then accepts or refuses the bytes. So it never accepts what the decoder
/// refuses, and what it reads is what the decoder reads.
package enum LegacyMetadataReader {
    /// What the legacy form holds.
    package struct Fields {
        /// The token's id.
        package let id: String
        /// The app's tags.
        package let tags: [String: String]
        /// The claims object's JSON text as stored; `nil` for an empty object (no claims).
        package let claims: [UInt8]?
        /// The first value of each claim of `indexing` the object holds.
        package let indexedClaims: [String: JSONValue]
    }

    /// Reads `bytes`, or gives up.
    ///
    /// - Parameters:
    ///   - bytes: A metadata record half in the legacy JSON form.
    ///   - version: The only wrapper version to read.
    ///   - indexing: The claims whose values to decode.
    /// - Returns: The fields, or `nil` when this reader cannot tell what `JSONDecoder` would make of
    ///   the bytes (malformed bytes included).
    package static func read(_ bytes: [UInt8], version: Int, indexing: Set<String>) -> Fields? {
        // A record of the legacy form starts with the brace itself (see `TokenRecordCoding`).
        guard bytes.first == UInt8(ascii: "{") else { return nil }
        let names = indexing.map { Array($0.utf8) }
        return bytes.withUnsafeBufferPointer { buffer in
            var parser = Parser(bytes: buffer, indexedNames: names)
            return parser.wrapper(version: version)
        }
    }
}

/// A cursor over the bytes; every method gives `nil` or `false` as soon as the bytes leave what
/// ``LegacyMetadataReader`` decides itself.
private struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    let indexedNames: [[UInt8]]
    var offset = 0

    /// Nesting past this depth is left to `JSONDecoder` (whose own limit is far higher).
    static let maximumDepth = 32
    /// The longest number literal read here: without an exponent, no literal this short can be
    /// out of `Double`'s range.
    static let maximumNumberLength = 20

    init(bytes: UnsafeBufferPointer<UInt8>, indexedNames: [[UInt8]]) {
        self.bytes = bytes
        self.indexedNames = indexedNames
    }

    // MARK: The form's objects

    /// `{"v":…,"value":…}`, in either order, and nothing after it but whitespace.
    mutating func wrapper(version: Int) -> LegacyMetadataReader.Fields? {
        guard take(.openBrace) else { return nil }
        var sawVersion = false
        var fields: LegacyMetadataReader.Fields?
        repeat {
            guard let key = string(), !key.escaped, take(.colon) else { return nil }
            if equals(key.range, "v") {
                guard !sawVersion, integer() == version else { return nil }
                sawVersion = true
            } else if equals(key.range, "value") {
                guard fields == nil, let metadata = metadata() else { return nil }
                fields = metadata
            } else {
                return nil
            }
        } while take(.comma)
        guard take(.closeBrace), sawVersion else { return nil }
        skipSpace()
        return offset == bytes.count ? fields : nil
    }

    /// `{"id":…,"tags":…,"claims":…}`, in any order.
    private mutating func metadata() -> LegacyMetadataReader.Fields? {
        guard take(.openBrace) else { return nil }
        var id: String?
        var tags: [String: String]?
        var claims: (text: [UInt8]?, indexed: [String: JSONValue])?
        repeat {
            guard let key = string(), !key.escaped, take(.colon) else { return nil }
            if equals(key.range, "id") {
                guard id == nil, let value = string() else { return nil }
                id = decoded(value)
            } else if equals(key.range, "tags") {
                guard tags == nil, let value = self.tags() else { return nil }
                tags = value
            } else if equals(key.range, "claims") {
                guard claims == nil, let value = self.claims() else { return nil }
                claims = value
            } else {
                return nil
            }
        } while take(.comma)
        guard take(.closeBrace), let id, let tags, let claims else { return nil }
        return LegacyMetadataReader.Fields(id: id, tags: tags, claims: claims.text, indexedClaims: claims.indexed)
    }

    /// An object of strings; a repeated key is left to `JSONDecoder`.
    private mutating func tags() -> [String: String]? {
        guard take(.openBrace) else { return nil }
        var tags: [String: String] = [:]
        if take(.closeBrace) { return tags }
        repeat {
            guard let key = string(), take(.colon), let value = string(),
                tags.updateValue(decoded(value), forKey: decoded(key)) == nil
            else { return nil }
        } while take(.comma)
        return take(.closeBrace) ? tags : nil
    }

    /// The claims object: its text, checked, and the first value of each indexed claim. A key
    /// that is escaped or not ASCII is left to `JSONDecoder`: it might equal an indexed name.
    private mutating func claims() -> (text: [UInt8]?, indexed: [String: JSONValue])? {
        skipSpace()
        let start = offset
        guard take(.openBrace) else { return nil }
        var indexed: [String: JSONValue] = [:]
        if take(.closeBrace) { return (nil, indexed) }
        repeat {
            guard let key = string(), !key.escaped, !key.nonASCII, take(.colon) else { return nil }
            if let name = indexedNames.first(where: { equals(key.range, $0) }),
                indexed[String(decoding: name, as: UTF8.self)] == nil
            {
                guard let value = indexedValue() else { return nil }
                indexed[String(decoding: name, as: UTF8.self)] = value
            } else {
                guard skipValue(depth: 1) else { return nil }
            }
        } while take(.comma)
        guard take(.closeBrace) else { return nil }
        return (Array(bytes[start..<offset]), indexed)
    }

    /// An indexed claim's value: a string, a boolean, null, or an array of those.
    private mutating func indexedValue() -> JSONValue? {
        if let scalar = scalarValue() { return scalar }
        guard take(.openBracket) else { return nil }
        var elements: [JSONValue] = []
        if take(.closeBracket) { return .array(elements) }
        repeat {
            guard let element = scalarValue() else { return nil }
            elements.append(element)
        } while take(.comma)
        return take(.closeBracket) ? .array(elements) : nil
    }

    private mutating func scalarValue() -> JSONValue? {
        skipSpace()
        guard offset < bytes.count else { return nil }
        switch bytes[offset] {
        case .quote: return string().map { .string(decoded($0)) }
        case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
        case UInt8(ascii: "n"): return literal("null") ? .null : nil
        default: return nil
        }
    }

    // MARK: Any value, checked only

    private mutating func skipValue(depth: Int) -> Bool {
        skipSpace()
        guard offset < bytes.count, depth <= Self.maximumDepth else { return false }
        switch bytes[offset] {
        case .quote: return string() != nil
        case .openBrace:
            offset += 1
            if take(.closeBrace) { return true }
            repeat {
                guard string() != nil, take(.colon), skipValue(depth: depth + 1) else { return false }
            } while take(.comma)
            return take(.closeBrace)
        case .openBracket:
            offset += 1
            if take(.closeBracket) { return true }
            repeat {
                guard skipValue(depth: depth + 1) else { return false }
            } while take(.comma)
            return take(.closeBracket)
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number()
        }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?`, at most ``maximumNumberLength`` bytes.
    private mutating func number() -> Bool {
        let start = offset
        if peekByte == UInt8(ascii: "-") { offset += 1 }
        guard let first = peekByte, first.isDigit else { return false }
        offset += 1
        if first == UInt8(ascii: "0") {
            if peekByte?.isDigit == true { return false }
        } else {
            while peekByte?.isDigit == true { offset += 1 }
        }
        if peekByte == UInt8(ascii: ".") {
            offset += 1
            guard peekByte?.isDigit == true else { return false }
            while peekByte?.isDigit == true { offset += 1 }
        }
        if peekByte == UInt8(ascii: "e") || peekByte == UInt8(ascii: "E") { return false }
        return offset - start <= Self.maximumNumberLength
    }

    /// A non-negative integer of digits only (the wrapper's version).
    private mutating func integer() -> Int? {
        skipSpace()
        let start = offset
        while peekByte?.isDigit == true, offset - start < 9 { offset += 1 }
        guard offset > start, peekByte?.isDigit != true, bytes[start] != UInt8(ascii: "0") || offset - start == 1
        else { return nil }
        return bytes[start..<offset].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    // MARK: Strings

    /// A string literal's contents (the bytes between the quotes, escapes as written), checked:
    /// valid UTF-8, no control character, only JSON's escapes and no surrogate among them.
    private mutating func string() -> (range: Range<Int>, escaped: Bool, nonASCII: Bool)? {
        guard take(.quote) else { return nil }
        let start = offset
        var escaped = false
        var nonASCII = false
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == .quote {
                let range = start..<offset
                offset += 1
                if nonASCII, String(validating: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) == nil {
                    return nil
                }
                return (range, escaped, nonASCII)
            } else if byte == .backslash {
                escaped = true
                guard offset + 1 < bytes.count else { return nil }
                if bytes[offset + 1] == UInt8(ascii: "u") {
                    guard let code = hex(at: offset + 2), !(0xD800...0xDFFF).contains(code) else { return nil }
                    offset += 6
                } else {
                    guard Self.unescaped(bytes[offset + 1]) != nil else { return nil }
                    offset += 2
                }
            } else if byte < 0x20 {
                return nil
            } else {
                if byte >= 0x80 { nonASCII = true }
                offset += 1
            }
        }
        return nil
    }

    /// A checked string literal's value.
    private func decoded(_ literal: (range: Range<Int>, escaped: Bool, nonASCII: Bool)) -> String {
        let raw = UnsafeBufferPointer(rebasing: bytes[literal.range])
        guard literal.escaped else { return String(decoding: raw, as: UTF8.self) }
        var text: [UInt8] = []
        text.reserveCapacity(raw.count)
        var index = raw.startIndex
        while index < raw.endIndex {
            guard raw[index] == .backslash else {
                text.append(raw[index])
                index += 1
                continue
            }
            if raw[index + 1] == UInt8(ascii: "u") {
                // Checked by `string()`: four hex digits, no surrogate.
                let code = hex(at: literal.range.lowerBound + index + 2)!
                UTF8.encode(Unicode.Scalar(code)!) { text.append($0) }
                index += 6
            } else {
                text.append(Self.unescaped(raw[index + 1])!)
                index += 2
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The byte a one-character escape stands for.
    private static func unescaped(_ byte: UInt8) -> UInt8? {
        switch byte {
        case .quote, .backslash, UInt8(ascii: "/"): byte
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
    }

    /// Four hex digits at `index`.
    private func hex(at index: Int) -> UInt32? {
        guard bytes.count - index >= 4 else { return nil }
        var code: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            code = code << 4 | UInt32(digit)
        }
        return code
    }

    // MARK: Bytes

    private var peekByte: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    /// Skips JSON's whitespace (space, tab, line feed, carriage return).
    private mutating func skipSpace() {
        while let byte = peekByte, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { offset += 1 }
    }

    /// Skips whitespace, then takes `byte` if it comes next.
    private mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard peekByte == byte else { return false }
        offset += 1
        return true
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard bytes.count - offset >= count,
            memcmpEqual(UnsafeBufferPointer(rebasing: bytes[offset..<offset + count]), word.utf8Start)
        else { return false }
        offset += count
        return true
    }

    private func equals(_ range: Range<Int>, _ word: StaticString) -> Bool {
        range.count == word.utf8CodeUnitCount
            && memcmpEqual(UnsafeBufferPointer(rebasing: bytes[range]), word.utf8Start)
    }

    private func equals(_ range: Range<Int>, _ name: [UInt8]) -> Bool {
        range.count == name.count && bytes[range].elementsEqual(name)
    }

    private func memcmpEqual(_ field: UnsafeBufferPointer<UInt8>, _ word: UnsafePointer<UInt8>) -> Bool {
        for index in 0..<field.count where field[index] != word[index] { return false }
        return true
    }
}

extension UInt8 {
    fileprivate static let quote = UInt8(ascii: "\"")
    fileprivate static let backslash = UInt8(ascii: "\\")
    fileprivate static let openBrace = UInt8(ascii: "{")
    fileprivate static let closeBrace = UInt8(ascii: "}")
    fileprivate static let openBracket = UInt8(ascii: "[")
    fileprivate static let closeBracket = UInt8(ascii: "]")
    fileprivate static let colon = UInt8(ascii: ":")
    fileprivate static let comma = UInt8(ascii: ",")

    fileprivate var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
}
