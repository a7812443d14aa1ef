import Foundation
import Locking
import OAuth2
import VaultCore
import VaultCrypto

/// The bytes of a token record's two halves — its ``Token/Metadata`` and its ``Token`` — as
/// ``VaultTokenStorage`` hands them to the vault to seal.
///
/// Writing always gives the binary form; reading takes it, or the JSON form records were written in
/// before it (`{"v":1,"value":…}`), which must stay readable for good: a token behind access control
/// cannot be re-encoded without a proof, so old records are never migrated. The JSON form predates
/// the verified mark, so it reads back unverified whatever its JSON says (through `Token`'s and
/// `Token.Metadata`'s `Codable`, which never set the mark).
///
/// The binary form, little-endian, every variable-length field behind a `UInt32` byte count:
///
///     marker   UInt8   0x81 (format 1); 0x82 (format 2) for a token with a DPoP key; 0x83
///                      (format 3) for a token whose ID token was verified, and for its metadata.
///                      A byte >= 0x80 never starts JSON (JSON is UTF-8 text and starts with an
///                      ASCII character), so the first byte tells the forms apart: `{` is the
///                      legacy JSON form, 0x81 to 0x83 this one, any other byte >= 0x80 a later
///                      format (``CredentialError/storage(_:)`` with `unsupportedFormat`), the rest
///                      corrupt. An older reader refuses a later format's record that way instead
///                      of reading it without its key or its mark; every record is written in the
///                      lowest format that holds it, so one without a key or a mark is format 1,
///                      byte for byte as before.
///     kind     UInt8   'T' (0x54) a token, 'M' (0x4D) metadata
///
///     token:    flags UInt8 (which optionals follow: 1 refreshToken, 2 idToken, 4 deviceSecret,
///               8 scope, 16 clientSecret, 32 a DPoP key (formats 2 and 3), 64 the ID token is
///               verified (format 3, which must have it, with flag 2)), id, tokenType,
///               accessToken, [refreshToken], [idToken (the compact JWT, as received)],
///               [deviceSecret], [scope: UInt32 count, strings], issuedAt (Float64 bits, seconds
///               since 2001: `Date`'s own value, full precision), expiresIn (Float64 bits), issuer
///               (absolute URL), clientID, [clientSecret], scopes (UInt32 count, strings); with
///               flag 32 (which format 2 must have): the DPoP key's algorithm (`EdDSA`) and its
///               32-byte Ed25519 seed
///     metadata: id, tags (UInt32 count, then key and value, keys in ascending UTF-8 byte order,
///               no duplicates), claims (UInt8: 0 none; 1 the ID token's payload part, base64url;
///               2 JSON text; then for 1 and 2 the bytes). Format 3 (a verified ID token's
///               claims) must hold claims 1.
///
/// The verified mark is sealed with the rest of the record, so only a writer holding the vault's
/// keys can set it, and this package sets it only on a token ``IDTokenValidator`` returned.
///
/// The layout is canonical: what decodes re-encodes to the same bytes (unless Foundation writes
/// an issuer URL back otherwise than it was stored). Anything malformed —
/// truncated, trailing bytes, a string that is not UTF-8, an unknown flag, keys out of order, a
/// non-finite date — is ``CredentialError/corruptRecord(_:)``, whose message never holds record
/// bytes. The claims are not parsed when metadata is read: ``Token/Metadata/claims`` parses them
/// on first access; an ID token's header and payload likewise (``JWT/init(stored:)``).
package enum TokenRecordCoding {
    /// The first byte of the binary form, format 1.
    package static let formatMarker: UInt8 = 0x81
    /// The first byte of a token half in format 2: format 1 with a DPoP key.
    package static let dpopFormatMarker: UInt8 = 0x82
    /// The first byte of either half in format 3: a verified ID token, with or without a DPoP key.
    package static let verifiedFormatMarker: UInt8 = 0x83
    /// The first bytes of the binary form, each format's.
    package static let binaryFormatMarkers: ClosedRange<UInt8> = formatMarker...verifiedFormatMarker
    /// The version inside the legacy JSON form's wrapper.
    static let legacyVersion = 1

    /// Which half of a record the bytes are.
    private enum Kind: UInt8 {
        case token = 0x54  // "T"
        case metadata = 0x4D  // "M"
    }

    /// Which optional fields of a token follow.
    private struct TokenFlags: OptionSet {
        let rawValue: UInt8
        static let refreshToken = TokenFlags(rawValue: 1)
        static let idToken = TokenFlags(rawValue: 2)
        static let deviceSecret = TokenFlags(rawValue: 4)
        static let scope = TokenFlags(rawValue: 8)
        static let clientSecret = TokenFlags(rawValue: 16)
        /// Formats 2 and 3.
        static let dpopKey = TokenFlags(rawValue: 32)
        /// Format 3, with ``idToken``.
        static let idTokenVerified = TokenFlags(rawValue: 64)
        static let all: TokenFlags = [.refreshToken, .idToken, .deviceSecret, .scope, .clientSecret]
    }

    /// How a metadata record holds its claims (the raw values of ``LazyJSONObject/Encoding`` for the others).
    private static let noClaims: UInt8 = 0

    // MARK: Encoding

    /// A token's record bytes.
    ///
    /// - Parameter token: The token.
    /// - Returns: The binary form.
    package static func encode(_ token: Token) -> [UInt8] {
        var flags: TokenFlags = []
        if token.refreshToken != nil { flags.insert(.refreshToken) }
        if token.idToken != nil { flags.insert(.idToken) }
        if token.deviceSecret != nil { flags.insert(.deviceSecret) }
        if token.scope != nil { flags.insert(.scope) }
        if token.context.clientSecret != nil { flags.insert(.clientSecret) }
        if token.dpopKey != nil { flags.insert(.dpopKey) }
        if token.idTokenVerified { flags.insert(.idTokenVerified) }
        let issuer = token.context.issuer.absoluteString
        var capacity = 3 + 2 * 8 + 11 * 4 + token.id.utf8.count + token.tokenType.utf8.count
        capacity += token.accessToken.utf8.count + issuer.utf8.count + token.context.clientID.utf8.count
        capacity += (token.refreshToken?.utf8.count ?? 0) + (token.idToken?.rawValue.utf8.count ?? 0)
        capacity += (token.deviceSecret?.utf8.count ?? 0) + (token.context.clientSecret?.utf8.count ?? 0)
        for scope in token.scope ?? [] { capacity += 4 + scope.utf8.count }
        for scope in token.context.scopes { capacity += 4 + scope.utf8.count }
        if token.dpopKey != nil { capacity += 8 + dpopAlgorithm.utf8.count + Ed25519SigningKey.seedCount }

        var writer = ByteWriter(reservingCapacity: capacity)
        writer.append(
            token.idTokenVerified ? verifiedFormatMarker : token.dpopKey == nil ? formatMarker : dpopFormatMarker)
        writer.append(Kind.token.rawValue)
        writer.append(flags.rawValue)
        writer.append(token.id)
        writer.append(token.tokenType)
        writer.append(token.accessToken)
        if let refreshToken = token.refreshToken { writer.append(refreshToken) }
        if let idToken = token.idToken { writer.append(idToken.rawValue) }
        if let deviceSecret = token.deviceSecret { writer.append(deviceSecret) }
        if let scope = token.scope { writer.append(scope) }
        writer.append(token.issuedAt.timeIntervalSinceReferenceDate.bitPattern)
        writer.append(token.expiresIn.bitPattern)
        writer.append(issuer)
        writer.append(token.context.clientID)
        if let clientSecret = token.context.clientSecret { writer.append(clientSecret) }
        writer.append(token.context.scopes)
        if let key = token.dpopKey {
            writer.append(dpopAlgorithm)
            key.withSeed { writer.append(lengthPrefixed: $0) }
        }
        return writer.bytes
    }

    /// The algorithm a stored DPoP key is for: the only one ``DPoPKey`` has.
    private static let dpopAlgorithm = JWSAlgorithm.edDSA.rawValue

    /// A token's metadata's record bytes. The claims are written as they are kept: an ID token's
    /// payload part as the issuer wrote it, claims read back as the same bytes, claims given as
    /// values as JSON.
    ///
    /// - Parameter metadata: The metadata.
    /// - Returns: The binary form.
    /// - Throws: ``CredentialError/corruptRecord(_:)`` when claims given as values are not JSON (a
    ///   non-finite number).
    package static func encode(_ metadata: Token.Metadata) throws -> [UInt8] {
        let claims: (encoding: LazyJSONObject.Encoding, bytes: [UInt8])?
        do {
            claims = try metadata.storedClaims()
        } catch {
            throw CredentialError.corruptRecord("the token's claims are not JSON")
        }
        let tags = metadata.tags.sorted { precedesInBytes($0.key, $1.key) }
        var capacity = 2 + 4 + metadata.id.utf8.count + 4 + 1 + 4 + (claims?.bytes.count ?? 0)
        for (key, value) in tags { capacity += 8 + key.utf8.count + value.utf8.count }

        let verified = metadata.claimsVerified && claims?.encoding == .base64URL
        var writer = ByteWriter(reservingCapacity: capacity)
        writer.append(verified ? verifiedFormatMarker : formatMarker)
        writer.append(Kind.metadata.rawValue)
        writer.append(metadata.id)
        writer.append(UInt32(tags.count))
        for (key, value) in tags {
            writer.append(key)
            writer.append(value)
        }
        if let claims {
            writer.append(claims.encoding.rawValue)
            writer.append(lengthPrefixed: claims.bytes)
        } else {
            writer.append(noClaims)
        }
        return writer.bytes
    }

    // MARK: Decoding

    /// A token from its record bytes, binary or legacy JSON.
    ///
    /// - Parameter bytes: The record's token half.
    /// - Returns: The token.
    /// - Throws: ``CredentialError/corruptRecord(_:)`` for malformed bytes,
    ///   ``CredentialError/storage(_:)`` with `unsupportedFormat` for a later format.
    package static func decodeToken(_ bytes: [UInt8]) throws -> Token {
        guard try isBinary(bytes) else { return try decodeLegacy(Token.self, from: bytes) }
        var reader = Reader(bytes)
        let marker = try reader.expectHeader(.token)
        let flags = TokenFlags(rawValue: try reader.byte())
        let allowed: TokenFlags
        switch marker {
        case dpopFormatMarker:
            guard flags.contains(.dpopKey) else { throw malformed }
            allowed = TokenFlags.all.union(.dpopKey)
        case verifiedFormatMarker:
            guard flags.isSuperset(of: [.idToken, .idTokenVerified]) else { throw malformed }
            allowed = TokenFlags.all.union([.dpopKey, .idTokenVerified])
        default:
            allowed = TokenFlags.all
        }
        guard allowed.isSuperset(of: flags) else { throw malformed }
        let hasKey = flags.contains(.dpopKey)
        let id = try reader.string()
        let tokenType = try reader.string()
        let accessToken = try reader.string()
        let refreshToken = flags.contains(.refreshToken) ? try reader.string() : nil
        let idToken: JWT?
        if flags.contains(.idToken) {
            guard let jwt = try? JWT(stored: try reader.string()) else { throw malformed }
            idToken = flags.contains(.idTokenVerified) ? jwt.markedVerified() : jwt
        } else {
            idToken = nil
        }
        let deviceSecret = flags.contains(.deviceSecret) ? try reader.string() : nil
        let scope = flags.contains(.scope) ? try reader.strings() : nil
        let issuedAt = try reader.finiteDouble()
        let expiresIn = try reader.finiteDouble()
        guard let issuer = issuerURL(try reader.string()) else { throw malformed }
        let clientID = try reader.string()
        let clientSecret = flags.contains(.clientSecret) ? try reader.string() : nil
        let scopes = try reader.strings()
        let dpopKey: DPoPKey?
        if hasKey {
            guard try reader.string() == dpopAlgorithm, let key = try? DPoPKey(seed: try reader.secureBytes()) else {
                throw malformed
            }
            dpopKey = key
        } else {
            dpopKey = nil
        }
        try reader.expectEnd()
        return Token(
            id: id, tokenType: tokenType, accessToken: accessToken, refreshToken: refreshToken, idToken: idToken,
            deviceSecret: deviceSecret, scope: scope, issuedAt: Date(timeIntervalSinceReferenceDate: issuedAt),
            expiresIn: expiresIn,
            context: Token.Context(issuer: issuer, clientID: clientID, clientSecret: clientSecret, scopes: scopes),
            dpopKey: dpopKey)
    }

    /// Metadata from its record bytes, binary or legacy JSON. The binary form's claims are not
    /// parsed here, only on first access.
    ///
    /// - Parameter bytes: The record's metadata half.
    /// - Returns: The metadata.
    /// - Throws: ``CredentialError/corruptRecord(_:)`` for malformed bytes,
    ///   ``CredentialError/storage(_:)`` with `unsupportedFormat` for a later format.
    package static func decodeMetadata(_ bytes: [UInt8]) throws -> Token.Metadata {
        guard try isBinary(bytes) else { return try decodeLegacy(Token.Metadata.self, from: bytes) }
        var reader = Reader(bytes)
        let verified = try reader.expectHeader(.metadata) == verifiedFormatMarker
        let id = try reader.string()
        let count = try reader.count(minimumElementBytes: 8)
        var tags = [String: String](minimumCapacity: count)
        var previousKey: String?
        for _ in 0..<count {
            let key = try reader.string()
            let value = try reader.string()
            if let previousKey, !precedesInBytes(previousKey, key) { throw malformed }
            // Two keys of other bytes can still be equal as Strings (canonically equivalent).
            guard tags.updateValue(value, forKey: key) == nil else { throw malformed }
            previousKey = key
        }
        let claims: LazyJSONObject?
        switch try reader.byte() {
        case noClaims: claims = nil
        case LazyJSONObject.Encoding.base64URL.rawValue:
            let payload = try reader.lengthPrefixed()
            guard LazyJSONObject.isBase64Shaped(payload) else { throw malformed }
            claims = LazyJSONObject(encoding: .base64URL, bytes: payload)
        case LazyJSONObject.Encoding.json.rawValue where !verified:
            let json = try reader.lengthPrefixed()
            guard json.first == UInt8(ascii: "{"), json.last == UInt8(ascii: "}") else { throw malformed }
            claims = LazyJSONObject(encoding: .json, bytes: json)
        default: throw malformed
        }
        try reader.expectEnd()
        guard claims != nil || !verified else { throw malformed }
        return Token.Metadata(id: id, tags: tags, storedClaims: claims, verified: verified)
    }

    /// The issuer URL last read: a vault's tokens mostly share one issuer, and parsing its URL
    /// again would be a large part of decoding a token.
    private static let lastIssuer = Locked<(text: String, url: URL)?>(nil)

    private static func issuerURL(_ text: String) -> URL? {
        if let last = lastIssuer.value, last.text == text { return last.url }
        guard let url = URL(string: text) else { return nil }
        lastIssuer.withLock { $0 = (text, url) }
        return url
    }

    /// Whether `bytes` are the binary form (else the legacy JSON form).
    ///
    /// - Throws: ``CredentialError/storage(_:)`` with `unsupportedFormat` for a later binary
    ///   format, ``CredentialError/corruptRecord(_:)`` for neither form.
    private static func isBinary(_ bytes: [UInt8]) throws -> Bool {
        switch bytes.first {
        case let marker? where binaryFormatMarkers.contains(marker): true
        case UInt8(ascii: "{")?: false
        case let marker? where marker >= 0x80:
            throw CredentialError.storage(
                .unsupportedFormat("token record format 0x\(String(marker, radix: 16, uppercase: true))"))
        default: throw malformed
        }
    }

    /// The legacy JSON form's wrapper.
    private struct Versioned<Value: Codable>: Codable {
        let v: Int
        let value: Value
    }

    private static func decodeLegacy<Value: Codable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
        guard let versioned = try? JSONDecoder().decode(Versioned<Value>.self, from: Data(bytes)) else {
            throw malformed
        }
        guard versioned.v == legacyVersion else {
            throw CredentialError.storage(.unsupportedFormat("token record version \(versioned.v)"))
        }
        return versioned.value
    }

    /// The one error for malformed bytes: it names no field and holds no byte of the record.
    private static let malformed = CredentialError.corruptRecord("a token record does not decode")

    /// Whether `first`'s UTF-8 bytes sort before `second`'s: the order of a record's tags. Compared
    /// over the strings' own storage; the UTF-8 views' general `lexicographicallyPrecedes` decodes
    /// both strings a code unit at a time, a few hundred more instructions for every store's tags.
    static func precedesInBytes(_ first: String, _ second: String) -> Bool {
        let compared = first.utf8.withContiguousStorageIfAvailable { left in
            second.utf8.withContiguousStorageIfAvailable { right in
                for (a, b) in zip(left, right) where a != b { return a < b }
                return left.count < right.count
            }
        }
        return (compared ?? nil) ?? first.utf8.lexicographicallyPrecedes(second.utf8)
    }

    // MARK: Bytes

    /// Reads what the encoders wrote; anything short or malformed throws ``malformed``.
    private struct Reader {
        private let bytes: [UInt8]
        private var offset = 0

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        /// Reads a half's header: a format marker and `kind`. Format 2 is a token's alone.
        ///
        /// - Returns: The format marker.
        mutating func expectHeader(_ kind: Kind) throws -> UInt8 {
            let marker = try byte()
            guard binaryFormatMarkers.contains(marker), marker != dpopFormatMarker || kind == .token,
                try byte() == kind.rawValue
            else { throw malformed }
            return marker
        }

        mutating func byte() throws -> UInt8 {
            guard offset < bytes.count else { throw malformed }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func integer<Integer: FixedWidthInteger>(_: Integer.Type) throws -> Integer {
            let size = MemoryLayout<Integer>.size
            guard bytes.count - offset >= size else { throw malformed }
            var value = Integer.zero
            for index in 0..<size {
                value |= Integer(bytes[offset + index]) << (8 * index)
            }
            offset += size
            return value
        }

        /// A field's byte count, checked against what is left.
        mutating func length() throws -> Int {
            let length = Int(try integer(UInt32.self))
            guard bytes.count - offset >= length else { throw malformed }
            return length
        }

        /// An element count, checked against what is left (each element takes at least
        /// `minimumElementBytes`), so a forged count cannot make a reader reserve gigabytes.
        mutating func count(minimumElementBytes: Int) throws -> Int {
            let count = Int(try integer(UInt32.self))
            guard count <= (bytes.count - offset) / minimumElementBytes else { throw malformed }
            return count
        }

        /// A length-prefixed field copied straight into guarded memory.
        mutating func secureBytes() throws -> SecureBytes {
            let length = try length()
            defer { offset += length }
            return SecureBytes(copying: bytes[offset..<offset + length])
        }

        mutating func lengthPrefixed() throws -> [UInt8] {
            let length = try length()
            defer { offset += length }
            return Array(bytes[offset..<offset + length])
        }

        mutating func string() throws -> String {
            let length = try length()
            let start = offset
            offset += length
            let text = bytes.withUnsafeBufferPointer { bytes in
                let field = UnsafeBufferPointer(rebasing: bytes[start..<start + length])
                // Tokens are ASCII: checking that is far cheaper than validating UTF-8 in general.
                return Self.isASCII(field)
                    ? String(decoding: field, as: UTF8.self) : String(validating: field, as: UTF8.self)
            }
            guard let text else { throw malformed }
            return text
        }

        private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            var any: UInt8 = 0
            for byte in bytes { any |= byte }
            return any < 0x80
        }

        mutating func strings() throws -> [String] {
            let count = try count(minimumElementBytes: 4)
            var texts: [String] = []
            texts.reserveCapacity(count)
            for _ in 0..<count { texts.append(try string()) }
            return texts
        }

        mutating func finiteDouble() throws -> Double {
            let value = Double(bitPattern: try integer(UInt64.self))
            guard value.isFinite else { throw malformed }
            return value
        }

        func expectEnd() throws {
            guard offset == bytes.count else { throw malformed }
        }
    }
}

extension ByteWriter {
    /// Appends a string as its length-prefixed UTF-8 bytes.
    fileprivate mutating func append(_ text: String) {
        append(lengthPrefixed: text.utf8)
    }

    /// Appends a count, then each string.
    fileprivate mutating func append(_ texts: [String]) {
        append(UInt32(texts.count))
        for text in texts { append(text) }
    }
}
