import Foundation

/// An issuer's signing keys: a JWK set document (RFC 7517 §5), keeping only the keys that can
/// check ID-token signatures (see ``JWK``).
public struct JWKSet: Sendable {
    /// The most members of `keys` read: the rest of a longer set is ignored, so a huge document
    /// cannot make a client build thousands of keys.
    public static let maximumKeyCount = 64

    /// The usable keys, in the document's order.
    public let keys: [JWK]

    /// Parses a JWK set document.
    ///
    /// - Parameter json: `{"keys": [...]}`.
    /// - Throws: ``OAuth2Error/invalidResponse(_:)`` when it is not a JSON object with a `keys`
    ///   array. A key that cannot be used is skipped, not an error.
    public init(json: Data) throws {
        guard let document = LazyJSONObject.object(json), case .array(let members)? = document["keys"] else {
            throw OAuth2Error.invalidResponse("the JWK set is not a JSON object with a keys array")
        }
        keys = members.prefix(Self.maximumKeyCount).compactMap { member in
            guard case .object(let key) = member else { return nil }
            return JWK(key)
        }
    }

    /// The key to check a token's signature with.
    ///
    /// - Parameters:
    ///   - id: The header's `kid`.
    ///   - algorithm: The header's `alg`.
    /// - Returns: The key named `id`; without an `id`, the set's only key for `algorithm`.
    /// - Throws: ``IDTokenValidationError/unknownKey`` when there is no such key,
    ///   ``IDTokenValidationError/wrongKeyType`` when the keys named `id` are for another algorithm.
    func key(id: String?, algorithm: JWSAlgorithm) throws(IDTokenValidationError) -> JWK {
        guard let id else {
            let candidates = keys.filter { $0.algorithm == algorithm }
            guard candidates.count == 1 else { throw .unknownKey }
            return candidates[0]
        }
        let named = keys.filter { $0.keyID == id }
        guard !named.isEmpty else { throw .unknownKey }
        guard let key = named.first(where: { $0.algorithm == algorithm }) else { throw .wrongKeyType }
        return key
    }
}
