import Foundation
import TestSupport
import Testing
import VaultCrypto

/// The signature keys against signatures another implementation made: the `openssl` command line,
/// and RFC 8037's Ed25519 example.
@Suite struct SignaturePublicKeyTests {
    static let rsa = try! TestSigningKey(.rsa)
    static let p256 = try! TestSigningKey(.p256)
    static let ed25519 = try! TestSigningKey(.ed25519)

    static func key(_ signer: TestSigningKey) throws -> SignaturePublicKey {
        let jwk = signer.publicJWK
        func bytes(_ field: String) throws -> [UInt8] { try #require(base64URL(jwk[field])) }
        switch signer.kind {
        case .rsa: return try .rsa(modulus: bytes("n"), exponent: bytes("e"))
        case .p256: return try .p256(x: bytes("x"), y: bytes("y"))
        case .ed25519: return try .ed25519(bytes("x"))
        }
    }

    static func base64URL(_ text: String?) -> [UInt8]? {
        guard var text = text?.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        else { return nil }
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: text).map(Array.init)
    }

    @Test(arguments: [rsa, p256, ed25519])
    func verifiesWhatOpenSSLSignedAndNothingElse(signer: TestSigningKey) throws {
        let key = try Self.key(signer)
        // Several messages: about half of the ECDSA signatures have an r or s with its high bit
        // set, which the DER conversion must pad.
        for index in 0..<6 {
            let message = Array("message \(index)".utf8)
            let signature = try signer.sign(message)
            #expect(key.isValidSignature(signature, for: message))
            #expect(!key.isValidSignature(signature, for: message + [0]))
            var flipped = signature
            flipped[index] ^= 0x01
            #expect(!key.isValidSignature(flipped, for: message))
            #expect(!key.isValidSignature(Array(signature.dropLast()), for: message))
            #expect(!key.isValidSignature([], for: message))
        }
        let other = try Self.key(try TestSigningKey(signer.kind))
        let message = Array("by another key".utf8)
        #expect(!other.isValidSignature(try signer.sign(message), for: message))
    }

    @Test func rfc8037Ed25519Example() throws {
        let key = try SignaturePublicKey.ed25519(
            try #require(Self.base64URL("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo")))
        let input = Array("eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc".utf8)
        let signature = try #require(
            Self.base64URL("hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"))
        #expect(key.isValidSignature(signature, for: input))
        #expect(!key.isValidSignature(signature, for: Array(input.dropLast())))
    }

    @Test func refusesKeysThatAreTooSmallOrNotOnTheCurve() throws {
        let small = try TestSigningKey(.rsa, rsaBits: 1024)
        #expect(throws: CryptoError.self) { try Self.key(small) }
        let x = try #require(Self.base64URL(Self.p256.publicJWK["x"]))
        var y = try #require(Self.base64URL(Self.p256.publicJWK["y"]))
        y[31] ^= 0x01
        #expect(throws: CryptoError.invalidParameters("not a point on P-256")) {
            try SignaturePublicKey.p256(x: x, y: y)
        }
        #expect(throws: CryptoError.self) { try SignaturePublicKey.p256(x: Array(x.dropFirst()), y: y) }
        #expect(throws: CryptoError.self) { try SignaturePublicKey.ed25519([UInt8](repeating: 1, count: 31)) }
        #expect(throws: CryptoError.self) { try SignaturePublicKey.rsa(modulus: [], exponent: [1, 0, 1]) }
    }
}
