import Foundation
import TokenVault

/// Realistic token sets: an RS256-sized access token and ID token (compact JWTs with the claims
/// common issuers send, unsigned: the signature part is random bytes of an RSA-2048 signature's
/// length), an opaque refresh token, and three tags: about 2.4 KiB as JSON, 3.2 KiB sealed with
/// its metadata.
enum TokenFixtures {
    /// The in-process issuer the refresh benchmark stubs (``StubTokenEndpoint`` answers its https
    /// URLs in the process, and `.invalid` never resolves, so a request can never leave the machine).
    static let issuer = URL(string: "https://\(StubTokenEndpoint.host)/")!
    /// The client id every fixture token was issued to.
    static let clientID = "tokenvault-bench-client"

    /// The user a fixture belongs to: `user-<index>`, the tag `find` looks for.
    static func user(_ index: Int) -> String { "user-\(index)" }

    /// The e-mail claim of a fixture's ID token, which `find` by claim looks for.
    static func email(_ index: Int) -> String { "user-\(index)@example.com" }

    /// The tags stored with a fixture.
    static func tags(_ index: Int) -> [String: String] {
        ["user": user(index), "tenant": "tenant-\(index % 100)", "displayName": "Bench User \(index)"]
    }

    /// The fixtures `indices` with their metadata, as the bulk hooks store them.
    static func stored(_ indices: Range<Int>) throws -> [(token: Token, metadata: Token.Metadata)] {
        try indices.map { index in
            let token = try token(index)
            return (token: token, metadata: Token.Metadata(token: token, tags: tags(index)))
        }
    }

    /// A token set for user `index`. The JWTs are written from templates (every value is plain
    /// ASCII, so no escaping is needed): the harness makes 100,000 of these, and a JSON encoder
    /// would cost more than the store being measured.
    ///
    /// - Parameters:
    ///   - index: Makes the user, claims and ids unique.
    ///   - expiresIn: The access token's lifetime; 0 makes it due for refresh at once.
    /// - Returns: The token.
    static func token(_ index: Int, expiresIn: TimeInterval = 3600) throws -> Token {
        let now = Date()
        let iat = Int(now.timeIntervalSince1970)
        let user = user(index)
        let access = """
            {"acr":"urn:example:loa:2","amr":["pwd","mfa"],"aud":["https://api.example.com"],\
            "auth_time":\(iat - 60),"azp":"\(clientID)","client_id":"\(clientID)","exp":\(iat + 3600),\
            "iat":\(iat),"iss":"https://auth.example.com/","jti":"\(randomID())","nbf":\(iat),\
            "roles":["reader","writer"],"scope":"openid profile email offline_access api.read api.write",\
            "sid":"\(randomID())","sub":"\(user)","tenant":"tenant-\(index % 100)"}
            """
        let identity = """
            {"at_hash":"x8Vd3W2r6pQkS0bJc9mHfA","aud":"\(clientID)","auth_time":\(iat - 60),\
            "azp":"\(clientID)","email":"\(email(index))","email_verified":true,"exp":\(iat + 3600),\
            "family_name":"User \(index)","given_name":"Bench","iat":\(iat),"iss":"https://auth.example.com/",\
            "locale":"en-US","name":"Bench User \(index)","nonce":"\(randomID())",\
            "preferred_username":"user\(index)","sid":"\(randomID())","sub":"\(user)"}
            """
        return Token(
            id: UUID().uuidString, tokenType: "Bearer",
            accessToken: "\(accessHeader).\(base64URL(Array(access.utf8))).\(signature)",
            refreshToken: refreshToken(),
            idToken: try JWT("\(identityHeader).\(base64URL(Array(identity.utf8))).\(signature)"),
            deviceSecret: nil, scope: ["openid", "profile", "email", "offline_access", "api.read", "api.write"],
            issuedAt: now, expiresIn: expiresIn,
            context: Token.Context(issuer: issuer, clientID: clientID, scopes: ["openid", "profile", "email"]))
    }

    /// An opaque refresh token of 64 random bytes, base64url.
    static func refreshToken() -> String {
        base64URL(SecureRandom.bytes(count: 64))
    }

    private static let accessHeader = base64URL(
        Array(#"{"alg":"RS256","kid":"bench-signing-key-2025-01","typ":"at+jwt"}"#.utf8))
    private static let identityHeader = base64URL(
        Array(#"{"alg":"RS256","kid":"bench-signing-key-2025-01","typ":"JWT"}"#.utf8))
    private static let signature = base64URL(SecureRandom.bytes(count: 256))

    /// 16 random bytes, base64url: a `jti`, `sid` or `nonce`.
    private static func randomID() -> String {
        base64URL(SecureRandom.bytes(count: 16))
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Base64url without padding (RFC 4648 §5).
    private static func base64URL(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { output.append(alphabet[Int((chunk >> UInt32(shift)) & 63)]) }
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let chunk = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            for shift in [18, 12, 6].prefix(rest + 1) { output.append(alphabet[Int((chunk >> UInt32(shift)) & 63)]) }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
