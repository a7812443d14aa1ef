import Foundation

/// A private key for signing test ID tokens, made and used with the `openssl` command line (so the
/// signer is another implementation than the library's verifier): RSA 2048 for `RS256`, P-256 for
/// `ES256`, Ed25519 for `EdDSA`; or the local authorization server's own RSA key, to sign tokens as
/// that server would.
public final class TestSigningKey: Sendable {
    /// The kinds of key.
    public enum Kind: Sendable, CaseIterable {
        case rsa, p256, ed25519

        /// The JWS `alg` this kind signs with.
        public var algorithm: String {
            switch self {
            case .rsa: "RS256"
            case .p256: "ES256"
            case .ed25519: "EdDSA"
            }
        }
    }

    /// The kind.
    public let kind: Kind
    /// The `kid` tokens and the public JWK carry.
    public let keyID: String
    /// The public key as a JWK (RFC 7517), with `kid`, `use` and `alg`.
    public let publicJWK: [String: String]
    /// The private key as PEM, written to a file of a folder of its own for each `openssl` run
    /// and removed with it: a key kept in a static would otherwise leave its folder behind, as no
    /// deinitializer runs at exit.
    private let privateKeyPEM: [UInt8]

    /// A new key.
    ///
    /// - Parameters:
    ///   - kind: RSA, P-256 or Ed25519.
    ///   - keyID: The `kid`; a random one by default.
    ///   - rsaBits: The modulus size of an RSA key; 2048 by default.
    /// - Throws: ``AuthorizationServer/SetupFailure`` when `openssl` fails.
    public convenience init(_ kind: Kind, keyID: String = UUID().uuidString, rsaBits: Int = 2048) throws {
        let directory = TemporaryDirectory()
        let file = directory.file(Self.keyFileName)
        let algorithm: [String] =
            switch kind {
            case .rsa: ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:\(rsaBits)"]
            case .p256: ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]
            case .ed25519: ["-algorithm", "ed25519"]
            }
        _ = try Self.openssl(["genpkey"] + algorithm + ["-out", file.path])
        try self.init(kind, privateKeyPEM: Array(Data(contentsOf: file)), keyID: keyID)
    }

    /// The local authorization server's RSA key (made by its setup), under the `kid` its JWK set
    /// gives it.
    ///
    /// - Parameter keyID: The server's `kid`.
    /// - Throws: ``AuthorizationServer/SetupFailure`` when `openssl` fails.
    public convenience init(authorizationServerKeyID keyID: String) throws {
        try self.init(
            .rsa,
            privateKeyPEM: Array(
                Data(contentsOf: AuthorizationServer.stateDirectory.appendingPathComponent("oidc_rsa_private_key.pem"))),
            keyID: keyID)
    }

    private init(_ kind: Kind, privateKeyPEM: [UInt8], keyID: String) throws {
        self.kind = kind
        self.keyID = keyID
        self.privateKeyPEM = privateKeyPEM
        let directory = TemporaryDirectory()
        let privateKeyFile = try Self.writeKey(privateKeyPEM, into: directory)
        var jwk = ["kid": keyID, "use": "sig", "alg": kind.algorithm]
        switch kind {
        case .rsa:
            let text = String(
                decoding: try Self.openssl(["rsa", "-in", privateKeyFile.path, "-noout", "-modulus"]), as: UTF8.self)
            let hex = text.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(
                of: "Modulus=", with: "")
            jwk["kty"] = "RSA"
            jwk["n"] = TestTokens.base64URL(Data(Self.bytes(hex: hex)))
            jwk["e"] = "AQAB"
        case .p256:
            // The SubjectPublicKeyInfo ends with the uncompressed point 04 || x || y.
            let point = try Self.publicKeyInfo(privateKeyFile).suffix(64)
            jwk["kty"] = "EC"
            jwk["crv"] = "P-256"
            jwk["x"] = TestTokens.base64URL(Data(point.prefix(32)))
            jwk["y"] = TestTokens.base64URL(Data(point.suffix(32)))
        case .ed25519:
            jwk["kty"] = "OKP"
            jwk["crv"] = "Ed25519"
            jwk["x"] = TestTokens.base64URL(Data(try Self.publicKeyInfo(privateKeyFile).suffix(32)))
        }
        publicJWK = jwk
    }

    /// The PEM text of the public key (what an HS256 forgery uses as its HMAC secret).
    public func publicKeyPEM() throws -> Data {
        let directory = TemporaryDirectory()
        return try Self.openssl(["pkey", "-in", Self.writeKey(privateKeyPEM, into: directory).path, "-pubout"])
    }

    /// The JWS signature of `message`: PKCS #1 v1.5 for RSA, `r || s` for P-256 (RFC 7518 §3.4),
    /// Ed25519 for Ed25519.
    ///
    /// - Parameter message: The signing input.
    /// - Returns: The signature.
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        let directory = TemporaryDirectory()
        let privateKeyFile = try Self.writeKey(privateKeyPEM, into: directory)
        let input = directory.file("message")
        try Data(message).write(to: input)
        switch kind {
        case .rsa:
            return Array(try Self.openssl(["dgst", "-sha256", "-sign", privateKeyFile.path, input.path]))
        case .p256:
            return try Self.rawECDSA(
                der: Array(try Self.openssl(["dgst", "-sha256", "-sign", privateKeyFile.path, input.path])))
        case .ed25519:
            return Array(
                try Self.openssl(["pkeyutl", "-sign", "-inkey", privateKeyFile.path, "-rawin", "-in", input.path]))
        }
    }

    /// A compact JWS of `claims` signed with this key, its header `{"alg", "kid", "typ": "JWT"}`
    /// with `header`'s fields added or replacing them (a `NSNull` value removes one).
    ///
    /// - Parameters:
    ///   - claims: The payload.
    ///   - header: Header fields to change.
    /// - Returns: `header.payload.signature`.
    public func token(_ claims: [String: Any], header: [String: Any] = [:]) throws -> String {
        var fields: [String: Any] = ["alg": kind.algorithm, "kid": keyID, "typ": "JWT"]
        for (name, value) in header { fields[name] = value is NSNull ? nil : value }
        let input = try Self.part(fields) + "." + Self.part(claims)
        return input + "." + TestTokens.base64URL(Data(try sign(Array(input.utf8))))
    }

    /// A JWK set document of `keys`.
    ///
    /// - Parameter keys: The keys' members.
    /// - Returns: `{"keys": [...]}`.
    public static func jwks(_ keys: [[String: Any]]) -> Data {
        try! JSONSerialization.data(withJSONObject: ["keys": keys], options: [.sortedKeys])
    }

    /// HMAC-SHA256 of `message` under `key`, for forging `HS256` tokens.
    ///
    /// - Parameters:
    ///   - key: The secret.
    ///   - message: The signing input.
    /// - Returns: The 32-byte MAC.
    public static func hmacSHA256(key: Data, message: [UInt8]) throws -> [UInt8] {
        let directory = TemporaryDirectory()
        let input = directory.file("message")
        try Data(message).write(to: input)
        let hexKey = key.map { String(format: "%02x", $0) }.joined()
        return Array(
            try openssl(["dgst", "-sha256", "-binary", "-mac", "HMAC", "-macopt", "hexkey:\(hexKey)", input.path]))
    }

    /// A base64url JSON part.
    ///
    /// - Parameter object: The JSON object.
    /// - Returns: Its sorted-keys JSON, base64url without padding.
    public static func part(_ object: [String: Any]) throws -> String {
        TestTokens.base64URL(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    private static let keyFileName = "key.pem"

    /// Writes the key, readable by its owner only, into `directory`.
    private static func writeKey(_ pem: [UInt8], into directory: TemporaryDirectory) throws -> URL {
        let file = directory.file(keyFileName)
        guard
            FileManager.default.createFile(
                atPath: file.path, contents: Data(pem), attributes: [.posixPermissions: 0o600])
        else { throw AuthorizationServer.SetupFailure(reason: "cannot write a test key to \(file.path)") }
        return file
    }

    private static func publicKeyInfo(_ privateKeyFile: URL) throws -> Data {
        try openssl(["pkey", "-in", privateKeyFile.path, "-pubout", "-outform", "DER"])
    }

    /// A DER `ECDSA-Sig-Value` (SEQUENCE of INTEGER r, INTEGER s; short lengths) as `r || s`.
    private static func rawECDSA(der: [UInt8]) throws -> [UInt8] {
        var offset = 2
        func integer() throws -> [UInt8] {
            guard der.count > offset + 2, der[offset] == 0x02 else {
                throw AuthorizationServer.SetupFailure(reason: "openssl gave an unexpected ECDSA signature")
            }
            let length = Int(der[offset + 1])
            let value = der[(offset + 2)..<(offset + 2 + length)].drop { $0 == 0 }
            offset += 2 + length
            return Array(repeating: 0, count: 32 - value.count) + value
        }
        return try integer() + integer()
    }

    private static func bytes(hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    @discardableResult
    private static func openssl(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw AuthorizationServer.SetupFailure(reason: "openssl \(arguments.first ?? "") failed")
        }
        return data
    }
}
