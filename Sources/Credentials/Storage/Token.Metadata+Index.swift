import OAuth2
import VaultCore

/// What the vault's index files a token under, and the equality both indexed and scanning
/// look-ups use, so a storage answers the same with and without an index.
extension Token.Metadata {
    /// The ID-token claims a vault indexes, besides every tag: the ones apps look users up by.
    /// Other claims are found by reading every token's metadata.
    public static let indexedClaims: Set<String> = ["sub", "email", "preferred_username"]
    /// ``indexedClaims`` in the order their terms follow the tags', each with its term's field
    /// (made once: every store makes terms).
    private static let indexedClaimsInOrder = indexedClaims.sorted().map { (name: $0, field: IndexTerm.claimField($0)) }

    /// Whether every one of `tags` is among this token's tags, with the same value.
    ///
    /// - Parameter tags: The tags to match; none matches every token.
    /// - Returns: `true` when all match.
    public func hasTags(_ tags: [String: String]) -> Bool {
        tags.allSatisfy { self.tags[$0.key] == $0.value }
    }

    /// Whether the ID-token claim `name` equals `value`: a string claim that is `value`, a number or
    /// boolean written as `value` (`42`, `true`), or an array with such an element.
    ///
    /// - Parameters:
    ///   - name: The claim's name.
    ///   - value: The value as text.
    /// - Returns: `true` when it matches.
    public func claim(_ name: String, equals value: String) -> Bool {
        Self.comparableValues(of: claims[name]).contains(value)
    }

    /// The terms a vault files this token under: each tag, and each value of the indexed claims.
    package var indexTerms: [IndexTerm] {
        let claims = claims
        return Self.indexTerms(tags: tags) { claims[$0] }
    }

    /// The terms of a token with `tags` whose indexed claims `claim` gives, for a caller that has
    /// not decoded the other claims.
    ///
    /// - Parameters:
    ///   - tags: The token's tags.
    ///   - claim: The value of an indexed claim, or `nil` when the token has none.
    /// - Returns: Each tag's term, then each indexed claim value's.
    package static func indexTerms(tags: [String: String], claim: (String) -> JSONValue?) -> [IndexTerm] {
        tags.map { IndexTerm.tag($0.key, equals: $0.value) }
            + indexedClaimsInOrder.flatMap { indexed in
                comparableValues(of: claim(indexed.name)).map { IndexTerm(field: indexed.field, value: $0) }
            }
    }

    /// The texts a claim value equals: itself for a string, its JSON text for a number or
    /// boolean, each such element of an array (nested arrays and objects equal nothing).
    private static func comparableValues(of claim: JSONValue?) -> [String] {
        switch claim {
        case .string(let text): [text]
        case .bool(let flag): [flag ? "true" : "false"]
        case .number: [claim?.anyValue.map { "\($0)" } ?? ""]
        case .array(let elements):
            elements.flatMap { element -> [String] in
                if case .array = element { return [] }
                return comparableValues(of: element)
            }
        case .null, .object, nil: []
        }
    }
}

extension IndexTerm {
    /// The term of one tag.
    package static func tag(_ name: String, equals value: String) -> IndexTerm {
        IndexTerm(field: "tag:" + name, value: value)
    }

    /// The term of one ID-token claim value.
    package static func claim(_ name: String, equals value: String) -> IndexTerm {
        IndexTerm(field: claimField(name), value: value)
    }

    /// The field of an ID-token claim's terms.
    fileprivate static func claimField(_ name: String) -> String {
        "claim:" + name
    }
}
