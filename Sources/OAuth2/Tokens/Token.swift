import Foundation

/// An OAuth 2.0 token set: access token, and the refresh token, ID token and device secret that came
/// with it. Its description never shows a token.
public struct Token: Codable, Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// Who issued the token and to which client: what a refresh or revoke needs.
    public struct Context: Codable, Sendable, Hashable, CustomStringConvertible, CustomReflectable {
        /// The issuer (its discovery documents live under it).
        public let issuer: URL
        /// The client the token was issued to.
        public let clientID: String
        /// The client secret of a confidential client; `nil` for a public client.
        public let clientSecret: String?
        /// The scopes asked for.
        public let scopes: [String]

        /// A context.
        ///
        /// - Parameters:
        ///   - issuer: The issuer URL.
        ///   - clientID: The client id.
        ///   - clientSecret: The client secret of a confidential client.
        ///   - scopes: The scopes asked for.
        public init(issuer: URL, clientID: String, clientSecret: String? = nil, scopes: [String] = []) {
            self.issuer = issuer
            self.clientID = clientID
            self.clientSecret = clientSecret
            self.scopes = scopes
        }

        /// Issuer and client, never the secret.
        public var description: String {
            "Context(issuer: \(issuer.absoluteString), clientID: \(clientID)\(clientSecret == nil ? "" : ", clientSecret: redacted"))"
        }

        /// What `dump()` and debuggers show: whether there is a client secret, never the secret.
        public var customMirror: Mirror {
            Mirror(
                self,
                children: [
                    "issuer": issuer, "clientID": clientID, "hasClientSecret": clientSecret != nil, "scopes": scopes,
                ], displayStyle: .struct)
        }
    }

    /// The kinds of token in a token set.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case accessToken, refreshToken, idToken, deviceSecret

        /// The RFC 7009 / RFC 7662 `token_type_hint` for this kind.
        public var typeHint: String {
            switch self {
            case .accessToken: "access_token"
            case .refreshToken: "refresh_token"
            case .idToken: "id_token"
            case .deviceSecret: "device_secret"
            }
        }
    }

    /// Locally generated, stable across refreshes.
    public let id: String
    /// `Bearer` or `DPoP`.
    public let tokenType: String
    /// The access token.
    public let accessToken: String
    /// The refresh token, if any.
    public let refreshToken: String?
    /// The ID token, if any.
    public let idToken: JWT?
    /// The device secret (OIDC native SSO), if any.
    public let deviceSecret: String?
    /// The granted scopes, when the server says.
    public let scope: [String]?
    /// When the token response was received.
    public let issuedAt: Date
    /// The access token's lifetime in seconds from ``issuedAt``.
    public let expiresIn: TimeInterval
    /// Who issued it and to which client.
    public let context: Context
    /// The key the token is bound to when it is DPoP-bound (``tokenType`` `DPoP`, RFC 9449): every
    /// request with it carries a proof this key signs. `nil` for a Bearer token, and for a DPoP
    /// token decoded without its key (which then cannot be used: ``OAuth2Error/dpopKeyMissing``).
    public let dpopKey: DPoPKey?

    /// Whether the token is DPoP-bound: its ``tokenType`` is `DPoP`.
    public var isDPoPBound: Bool { tokenType == Self.dpopTokenType }

    /// The ``tokenType`` of a DPoP-bound token.
    public static let dpopTokenType = "DPoP"

    /// When the access token expires.
    public var expiresAt: Date { issuedAt.addingTimeInterval(expiresIn) }

    /// Whether the ID token's signature and claims were checked (``JWT/isVerified``): `true` for
    /// a token an ``OAuth2Client`` grant or refresh returned with an ID token (and for it read back
    /// from a vault, whose token record seals the mark), `false` without an ID token, for one
    /// decoded from a raw response with ``init(response:context:issuedAt:)``, and for any token
    /// decoded with `Codable` (``init(from:)``), whatever the data says.
    public var idTokenVerified: Bool { idToken?.isVerified ?? false }

    /// The token types a response may carry, spelled as registered (RFC 6750, RFC 9449): the
    /// decoded ``tokenType`` is always one of these.
    public static let knownTokenTypes = ["Bearer", "DPoP"]

    /// Decodes an OAuth 2.0 token endpoint response (RFC 6749 §5.1).
    ///
    /// `expires_in` may be a number or a numeric string; when absent, the access token's own
    /// `exp` is used if it is a JWT, else the lifetime is unknown and taken as zero (so the token
    /// counts as expired and is refreshed before use). `token_type` must be `Bearer` or `DPoP` in
    /// any case (it is stored as registered), and `access_token` printable ASCII (RFC 6749 A.12):
    /// both end up in an `Authorization` header, where nothing from the server may add a line.
    /// The ID token is decoded, not verified: ``idTokenVerified`` is `false`.
    /// - Parameters:
    ///   - response: The response body.
    ///   - context: The issuer and client the token is for.
    ///   - issuedAt: When the response was received.
    /// - Throws: ``OAuth2Error/server(error:description:statusCode:)`` for an error body,
    ///   ``OAuth2Error/invalidResponse(_:)`` for anything that is not a token response (an
    ///   unknown `token_type`, an `access_token` with control characters),
    ///   ``OAuth2Error/invalidToken(_:)`` for a malformed ID token.
    public init(response: Data, context: Context, issuedAt: Date = Date()) throws {
        guard case .object(let json)? = try? JSONDecoder().decode(JSONValue.self, from: response) else {
            throw OAuth2Error.invalidResponse("the token response is not a JSON object")
        }
        if let error = json["error"]?.stringValue {
            throw OAuth2Error.server(
                error: error, description: json["error_description"]?.stringValue, statusCode: 200)
        }
        guard let accessToken = json["access_token"]?.stringValue, !accessToken.isEmpty else {
            throw OAuth2Error.invalidResponse("the token response has no access_token")
        }
        // Both go into an Authorization header: a CR or LF from the server would let it add headers
        // (or a request) to every call the app authorizes.
        guard accessToken.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw OAuth2Error.invalidResponse("the access_token has characters outside printable ASCII")
        }
        guard let tokenType = json["token_type"]?.stringValue else {
            throw OAuth2Error.invalidResponse("the token response has no token_type")
        }
        guard let knownType = Self.knownTokenTypes.first(where: { $0.lowercased() == tokenType.lowercased() }) else {
            throw OAuth2Error.invalidResponse("the token_type is not Bearer or DPoP")
        }
        let lifetime: TimeInterval
        switch json["expires_in"] {
        case .number(let seconds)?: lifetime = seconds
        case .string(let text)?:
            // TimeInterval(_:) also reads "nan" and "inf", and "1e400" as infinity: such a token would
            // never count as expired, and could not be stored (JSON has no such numbers).
            guard let seconds = TimeInterval(text), seconds.isFinite else {
                throw OAuth2Error.invalidResponse("expires_in is not a number")
            }
            lifetime = seconds
        case nil, .null?:
            lifetime = (try? JWT(accessToken)).flatMap(\.expirationTime).map { $0.timeIntervalSince(issuedAt) } ?? 0
        default: throw OAuth2Error.invalidResponse("expires_in is not a number")
        }
        self.init(
            id: UUID().uuidString, tokenType: knownType, accessToken: accessToken,
            refreshToken: json["refresh_token"]?.stringValue,
            idToken: try json["id_token"]?.stringValue.map { try JWT($0) },
            deviceSecret: json["device_secret"]?.stringValue,
            scope: json["scope"]?.stringValue.map { $0.split(separator: " ").map(String.init) },
            issuedAt: issuedAt, expiresIn: lifetime, context: context)
    }

    /// A token from its parts (for storage and refresh merging).
    ///
    /// - Parameters:
    ///   - id: The local id.
    ///   - tokenType: `Bearer` or `DPoP`.
    ///   - accessToken: The access token.
    ///   - refreshToken: The refresh token.
    ///   - idToken: The ID token.
    ///   - deviceSecret: The device secret.
    ///   - scope: The granted scopes.
    ///   - issuedAt: When it was issued.
    ///   - expiresIn: The access token's lifetime.
    ///   - context: Issuer and client.
    ///   - dpopKey: The key a DPoP-bound token is bound to.
    public init(
        id: String, tokenType: String, accessToken: String, refreshToken: String?, idToken: JWT?,
        deviceSecret: String?, scope: [String]?, issuedAt: Date, expiresIn: TimeInterval, context: Context,
        dpopKey: DPoPKey? = nil
    ) {
        self.id = id
        self.tokenType = tokenType
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.deviceSecret = deviceSecret
        self.scope = scope
        self.issuedAt = issuedAt
        self.expiresIn = expiresIn
        self.context = context
        self.dpopKey = dpopKey
    }

    /// The same token bound to `key`.
    ///
    /// - Parameter key: The key.
    /// - Returns: The token with ``dpopKey`` set.
    public func bound(to key: DPoPKey?) -> Token {
        Token(
            id: id, tokenType: tokenType, accessToken: accessToken, refreshToken: refreshToken, idToken: idToken,
            deviceSecret: deviceSecret, scope: scope, issuedAt: issuedAt, expiresIn: expiresIn, context: context,
            dpopKey: key)
    }

    /// The value of one kind of token in this set, if present.
    ///
    /// - Parameter kind: Which token.
    /// - Returns: Its string.
    public func value(of kind: Kind) -> String? {
        switch kind {
        case .accessToken: accessToken
        case .refreshToken: refreshToken
        case .idToken: idToken?.rawValue
        case .deviceSecret: deviceSecret
        }
    }

    /// The id, type, expiry, which tokens are present and whether a DPoP key is; never a token or
    /// a key.
    public var description: String {
        var present = Kind.allCases.filter { value(of: $0) != nil }.map(\.rawValue)
        if dpopKey != nil { present.append("dpopKey") }
        return
            "Token(id: \(id), type: \(tokenType), expiresAt: \(expiresAt), has: [\(present.joined(separator: ", "))], \(context))"
    }

    /// What `dump()` and debuggers show: the same fields as ``description``, never a token. (Without
    /// it, `dump(token)` would walk the stored properties and print every token string.)
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "id": id, "tokenType": tokenType, "has": Kind.allCases.filter { value(of: $0) != nil },
                "scope": scope as Any, "issuedAt": issuedAt, "expiresIn": expiresIn, "context": context,
                "hasDPoPKey": dpopKey != nil,
            ], displayStyle: .struct)
    }
}

extension Token {
    /// What a revocation removes at the server (`Credential.revoke(type:)`).
    public enum RevokeType: Sendable, Hashable {
        /// The refresh token (which revokes the grant at most servers), then the access token.
        case all
        case accessToken
        case refreshToken
        case deviceSecret
    }

    /// What `Credential.find(where:)` sees: the id, the tags and the ID token's claims — never a
    /// token string, so filtering needs no proof.
    ///
    /// Read back from a token record, the claims stay the ID token's own bytes until ``claims`` is
    /// first read (then they are parsed once, and kept): finding by tag parses no JSON.
    public struct Metadata: Sendable, Hashable, Codable, JSONClaimsContainer, CustomStringConvertible,
        CustomReflectable
    {
        /// Where the claims come from.
        private enum ClaimsSource: Sendable {
            /// Claims given as values (or decoded from the legacy JSON form).
            case parsed([String: JSONValue])
            /// The claims of this ID token.
            case idToken(JWT)
            /// Claims read back from a token record, parsed on first access.
            case stored(LazyJSONObject)
        }

        /// The token's id.
        public let id: String
        /// The app's tags.
        public let tags: [String: String]
        // Where the claims come from, one of three (none set: no claims). Kept as optionals, not as
        // a `ClaimsSource`: an enum keeps its case in the spare bits of its payload's pointer, and
        // LeakSanitizer, which cannot follow such a pointer, reported every ID token held only by
        // a stored credential's metadata as leaked.
        private let parsedClaims: [String: JSONValue]?
        private let idToken: JWT?
        private let storedClaimsObject: LazyJSONObject?
        /// Whether stored claims were recorded as a verified ID token's.
        private let storedClaimsVerified: Bool

        private var claimsSource: ClaimsSource {
            if let idToken { return .idToken(idToken) }
            if let storedClaimsObject { return .stored(storedClaimsObject) }
            return .parsed(parsedClaims ?? [:])
        }

        /// The ID token's claims (empty without an ID token).
        public var claims: [String: JSONValue] {
            switch claimsSource {
            case .parsed(let claims): claims
            case .idToken(let jwt): jwt.claims
            case .stored(let object): object.object ?? [:]
            }
        }

        /// Whether the claims are those of an ID token ``IDTokenValidator`` verified (``JWT/isVerified``)
        /// before the token was stored: `true` for a token a grant or refresh of ``OAuth2Client``
        /// returned, read back from a vault as from memory; `false` for claims given as values, an ID
        /// token decoded from a raw response (``Token/init(response:context:issuedAt:)``), and tokens
        /// stored before vaults recorded the mark. The mark is sealed with the record, so whoever holds
        /// only the vault file cannot set it; it says the checks passed when the token arrived, not that
        /// the claims are current.
        public var claimsVerified: Bool {
            switch claimsSource {
            case .parsed: false
            case .idToken(let jwt): jwt.isVerified
            case .stored: storedClaimsVerified
            }
        }

        /// Metadata.
        ///
        /// - Parameters:
        ///   - id: The token's id.
        ///   - tags: The app's tags.
        ///   - claims: The ID token's claims.
        public init(id: String, tags: [String: String] = [:], claims: [String: JSONValue] = [:]) {
            self.id = id
            self.tags = tags
            parsedClaims = claims
            idToken = nil
            storedClaimsObject = nil
            storedClaimsVerified = false
        }

        /// Metadata for a token: its id and ID-token claims with `tags`.
        ///
        /// - Parameters:
        ///   - token: The token.
        ///   - tags: The app's tags.
        public init(token: Token, tags: [String: String]) {
            id = token.id
            self.tags = tags
            parsedClaims = nil
            idToken = token.idToken
            storedClaimsObject = nil
            storedClaimsVerified = false
        }

        /// Metadata read back from a token record, its claims parsed on first access.
        ///
        /// - Parameters:
        ///   - id: The token's id.
        ///   - tags: The app's tags.
        ///   - storedClaims: The claims as ``storedClaims()`` gave them; `nil` for none.
        ///   - verified: Whether they were recorded as a verified ID token's (``claimsVerified``).
        package init(id: String, tags: [String: String], storedClaims: LazyJSONObject?, verified: Bool) {
            self.id = id
            self.tags = tags
            parsedClaims = nil
            idToken = nil
            storedClaimsObject = storedClaims
            storedClaimsVerified = verified && storedClaims != nil
        }

        /// The same metadata with other tags: the claims stay as they are kept, and with them
        /// ``claimsVerified``.
        ///
        /// - Parameter tags: The new tags.
        /// - Returns: The retagged metadata.
        package func withTags(_ tags: [String: String]) -> Metadata {
            Metadata(
                id: id, tags: tags, parsedClaims: parsedClaims, idToken: idToken,
                storedClaimsObject: storedClaimsObject,
                storedClaimsVerified: storedClaimsVerified)
        }

        private init(
            id: String, tags: [String: String], parsedClaims: [String: JSONValue]?, idToken: JWT?,
            storedClaimsObject: LazyJSONObject?, storedClaimsVerified: Bool
        ) {
            self.id = id
            self.tags = tags
            self.parsedClaims = parsedClaims
            self.idToken = idToken
            self.storedClaimsObject = storedClaimsObject
            self.storedClaimsVerified = storedClaimsVerified
        }

        /// The same metadata with an ID token's claims kept as its payload part, the bytes a token
        /// record keeps them as, and not the ID token itself (its header and signature): what a
        /// credential keeps beside its token, of which `lock()` must leave no readable copy.
        /// ``claims`` and ``claimsVerified`` stay as they are.
        package func keepingClaimsOnly() -> Metadata {
            guard let idToken else { return self }
            return Metadata(
                id: id, tags: tags, parsedClaims: nil, idToken: nil,
                storedClaimsObject: LazyJSONObject(encoding: .base64URL, bytes: idToken.payloadBytes),
                storedClaimsVerified: idToken.isVerified)
        }

        /// Whether this metadata holds an ID token (not only its claims): for the tests that a
        /// credential keeps none.
        package var holdsIDTokenForTesting: Bool { idToken != nil }

        /// The claims as a token record keeps them, without parsing them: the ID token's payload
        /// part, the bytes they were read back from, or (for claims given as values) their JSON.
        ///
        /// - Returns: How the bytes hold the claims, and the bytes; `nil` when there are none.
        /// - Throws: `EncodingError` when claims given as values are not JSON (a non-finite number).
        package func storedClaims() throws -> (encoding: LazyJSONObject.Encoding, bytes: [UInt8])? {
            switch claimsSource {
            case .parsed(let claims):
                guard !claims.isEmpty else { return nil }
                let encoder = JSONEncoder()
                encoder.outputFormatting = .sortedKeys
                return (.json, Array(try encoder.encode(claims)))
            case .idToken(let jwt): return (.base64URL, jwt.payloadBytes)
            case .stored(let object): return (object.encoding, object.bytes)
            }
        }

        private enum CodingKeys: String, CodingKey {
            case id, tags, claims
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                id: try container.decode(String.self, forKey: .id),
                tags: try container.decode([String: String].self, forKey: .tags),
                claims: try container.decode([String: JSONValue].self, forKey: .claims))
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(tags, forKey: .tags)
            try container.encode(claims, forKey: .claims)
        }

        /// Equal ids, tags, claims and ``claimsVerified`` (claims kept as the same bytes compare
        /// without parsing).
        public static func == (lhs: Metadata, rhs: Metadata) -> Bool {
            guard lhs.id == rhs.id, lhs.tags == rhs.tags, lhs.claimsVerified == rhs.claimsVerified else { return false }
            switch (lhs.claimsSource, rhs.claimsSource) {
            case (.idToken(let left), .idToken(let right)) where left.rawValue == right.rawValue:
                return true
            case (.stored(let left), .stored(let right))
            where left === right || (left.encoding == right.encoding && left.bytes == right.bytes):
                return true
            default:
                return lhs.claims == rhs.claims
            }
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(id)
            hasher.combine(tags)
            hasher.combine(claims)
        }

        /// The id and tag names (tag values may identify a user, so they are left out).
        public var description: String {
            "Token.Metadata(id: \(id), tags: \(tags.keys.sorted()))"
        }

        /// What `dump()` and debuggers show: as ``description``, tag names without their values.
        public var customMirror: Mirror {
            Mirror(self, children: ["id": id, "tagNames": tags.keys.sorted()], displayStyle: .struct)
        }
    }
}
