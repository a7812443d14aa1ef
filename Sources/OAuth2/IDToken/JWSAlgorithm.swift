/// A JWS signature algorithm ID tokens may be signed with here (RFC 7518 §3, RFC 8037 §3.1).
///
/// Only asymmetric algorithms: an ID token signed with a shared secret (`HS256`) or not at all
/// (`none`) is never accepted, whatever the options say.
public enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable, Codable {
    /// RSASSA-PKCS1-v1_5 with SHA-256: the OpenID Connect default. Needs an `RSA` key.
    case rs256 = "RS256"
    /// ECDSA on P-256 with SHA-256. Needs an `EC` key on `P-256`.
    case es256 = "ES256"
    /// EdDSA on Ed25519 (the only curve accepted). Needs an `OKP` key on `Ed25519`.
    case edDSA = "EdDSA"
}
