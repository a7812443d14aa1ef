import Foundation
import Locking

/// A JSON Web Token, decoded for its claims.
///
/// Decoding reads the payload of a compact JWS (`header.payload.signature`) and checks nothing:
/// a decoded JWT is unverified (``isVerified`` is `false`). Only ``IDTokenValidator`` (which
/// ``OAuth2Client`` runs on every ID token it receives) gives a verified one. Equality and hashing
/// compare ``rawValue`` alone, and the `Codable` form is the compact text, so decoding it gives an
/// unverified JWT again.
public struct JWT: Codable, Sendable, Hashable, HasClaims, JSONClaimsContainer, CustomStringConvertible,
    CustomReflectable
{
    /// The compact serialisation.
    public let rawValue: String
    /// Whether ``IDTokenValidator`` checked this token's signature and claims: `true` only for a
    /// JWT it returned.
    public let isVerified: Bool
    /// The header and payload, parsed when decoded from `rawValue` or on first access.
    private let parts: Parts

    /// The payload's claims.
    public var claims: [String: JSONValue] { parts.decoded.claims }
    /// The header's fields (`alg`, `kid`, `typ`).
    public var header: [String: JSONValue] { parts.decoded.header }

    /// Decodes a compact JWT.
    ///
    /// - Parameter rawValue: `header.payload.signature`, base64url without padding.
    /// - Throws: ``OAuth2Error/invalidToken(_:)`` when it has not three parts, a part is not
    ///   base64url, or the header or payload is not a JSON object.
    public init(_ rawValue: String) throws {
        let parts = rawValue.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw OAuth2Error.invalidToken("a JWT has three dot-separated parts, this has \(parts.count)")
        }
        self.rawValue = rawValue
        isVerified = false
        let header = try Self.decodeObject(parts[0], part: "header")
        let claims = try Self.decodeObject(parts[1], part: "payload")
        self.parts = Parts(rawValue, decoded: Decoded(header: header, claims: claims))
    }

    private init(verified jwt: JWT) {
        rawValue = jwt.rawValue
        isVerified = true
        parts = jwt.parts
    }

    /// This token, marked verified: for ``IDTokenValidator`` once every check passed, and for a
    /// token read back from storage that recorded it as verified.
    package func markedVerified() -> JWT {
        JWT(verified: self)
    }

    /// A JWT read back from storage, where it was kept after ``init(_:)`` decoded it: only its shape
    /// is checked (three parts, the header and payload shaped as ``init(_:)`` takes them; the
    /// signature is not read, there as here), and its header and payload are parsed on first
    /// access. Should they not parse after all, both read as empty. Every `rawValue` ``init(_:)``
    /// accepts, this accepts.
    ///
    /// - Parameter rawValue: `header.payload.signature`, base64url without padding.
    /// - Throws: ``OAuth2Error/invalidToken(_:)`` when it is not three parts or the header or
    ///   payload is not base64url-shaped.
    package init(stored rawValue: String) throws {
        var text = rawValue
        let shaped = text.withUTF8 { bytes in
            guard let (header, payload) = Self.headerAndPayload(bytes) else { return false }
            return LazyJSONObject.isBase64Shaped(UnsafeBufferPointer(rebasing: bytes[header]))
                && LazyJSONObject.isBase64Shaped(UnsafeBufferPointer(rebasing: bytes[payload]))
        }
        guard shaped else { throw OAuth2Error.invalidToken("a stored JWT is not three base64url parts") }
        self.rawValue = rawValue
        isVerified = false
        self.parts = Parts(rawValue, decoded: nil)
    }

    /// The payload part of ``rawValue``'s UTF-8: base64url of the claims' JSON, as the issuer wrote it.
    package var payloadBytes: [UInt8] {
        var text = rawValue
        return text.withUTF8 { bytes in
            Self.headerAndPayload(bytes).map { Array(UnsafeBufferPointer(rebasing: bytes[$0.payload])) } ?? []
        }
    }

    /// Where the header and payload parts of a compact JWT are: the bytes before the first dot and
    /// between the first and second. (Both are base64 in any JWT ``init(_:)`` accepted, so these
    /// dots are its separators; the signature, which nothing reads, is the rest.)
    ///
    /// - Parameter bytes: `header.payload.signature`, UTF-8.
    /// - Returns: The two parts' ranges, or `nil` with fewer than two dots.
    private static func headerAndPayload(_ bytes: UnsafeBufferPointer<UInt8>) -> (
        header: Range<Int>, payload: Range<Int>
    )? {
        // memchr: a byte loop would be most of a stored token's decoding time.
        func dot(from start: Int) -> Int? {
            guard let base = bytes.baseAddress, start < bytes.count,
                let found = memchr(base + start, Int32(UInt8(ascii: ".")), bytes.count - start)
            else { return nil }
            return UnsafeRawPointer(found) - UnsafeRawPointer(base)
        }
        guard let first = dot(from: 0), let second = dot(from: first + 1) else { return nil }
        return (0..<first, (first + 1)..<second)
    }

    /// Redacted: the token's issuer and subject and whether it is verified, never the token.
    public var description: String {
        "JWT(iss: \(issuer ?? "-"), sub: \(subject ?? "-"), \(isVerified ? "verified" : "unverified"), redacted)"
    }

    /// What `dump()` and debuggers show: the issuer and subject and whether it is verified, never
    /// the token.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["issuer": issuer as Any, "subject": subject as Any, "isVerified": isVerified],
            displayStyle: .struct)
    }

    public init(from decoder: any Decoder) throws {
        try self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func == (lhs: JWT, rhs: JWT) -> Bool { lhs.rawValue == rhs.rawValue }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    static func base64URLDecode(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !base64.contains("=") else { return nil }
        switch base64.count % 4 {
        case 2: base64 += "=="
        case 3: base64 += "="
        case 1: return nil
        default: break
        }
        return Data(base64Encoded: base64)
    }

    private static func decodeObject(_ text: Substring, part: String) throws -> [String: JSONValue] {
        guard let data = base64URLDecode(text) else {
            throw OAuth2Error.invalidToken("the JWT \(part) is not base64url")
        }
        guard let object = LazyJSONObject.object(data) else {
            throw OAuth2Error.invalidToken("the JWT \(part) is not a JSON object")
        }
        return object
    }

    /// A JWT's header and claims.
    private struct Decoded: Sendable {
        let header: [String: JSONValue]
        let claims: [String: JSONValue]
    }

    /// The parsed header and claims, shared by copies of a JWT and parsed at most once.
    private final class Parts: Sendable {
        private let rawValue: String
        private let cache: Locked<Decoded?>

        init(_ rawValue: String, decoded: Decoded?) {
            self.rawValue = rawValue
            cache = Locked(decoded)
        }

        var decoded: Decoded {
            cache.withLock { cache in
                if let decoded = cache { return decoded }
                var text = rawValue
                let parts = text.withUTF8 { bytes in
                    JWT.headerAndPayload(bytes).map {
                        (
                            header: LazyJSONObject.base64URLDecoded(UnsafeBufferPointer(rebasing: bytes[$0.header])),
                            payload: LazyJSONObject.base64URLDecoded(UnsafeBufferPointer(rebasing: bytes[$0.payload]))
                        )
                    }
                }
                let decoded = Decoded(
                    header: parts?.header.flatMap(LazyJSONObject.object) ?? [:],
                    claims: parts?.payload.flatMap(LazyJSONObject.object) ?? [:])
                cache = decoded
                return decoded
            }
        }
    }
}
