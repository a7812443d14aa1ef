/// How a confidential client authenticates at the token, revocation and introspection endpoints
/// (RFC 6749 §2.3.1). Public clients send only `client_id` in the body.
public enum ClientAuthentication: String, Sendable, Hashable {
    /// HTTP Basic with the form-encoded id and secret (the default).
    case basic = "client_secret_basic"
    /// `client_id` and `client_secret` in the form body.
    case post = "client_secret_post"
}
