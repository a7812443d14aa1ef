import OAuth2
import VaultCore

/// What the upgrade to an indexed vault writes for each token record's metadata.
extension TokenRecordCoding {
    /// A metadata record half in the binary form, and the token's index terms, from the half in
    /// either form: what the upgrade of a format version 2 vault seals into each token record.
    ///
    /// The legacy JSON form is read by ``LegacyMetadataReader``, which keeps the claims as their
    /// stored JSON text instead of decoding them to values and encoding them again; what it leaves
    /// undecided goes through ``decodeMetadata(_:)``. Either way the record reads back as the same
    /// ``Token/Metadata`` (same id, tags and claims), with the same terms.
    ///
    /// - Parameter bytes: The record's metadata half.
    /// - Returns: The binary form, and the terms.
    /// - Throws: What ``decodeMetadata(_:)`` and ``encode(_:)-(Token.Metadata)`` throw.
    package static func upgradedMetadata(_ bytes: [UInt8]) throws -> (metadata: [UInt8], terms: [IndexTerm]) {
        if let fields = LegacyMetadataReader.read(bytes, version: legacyVersion, indexing: Token.Metadata.indexedClaims)
        {
            let metadata = Token.Metadata(
                id: fields.id, tags: fields.tags,
                storedClaims: fields.claims.map { LazyJSONObject(encoding: .json, bytes: $0) }, verified: false)
            let terms = Token.Metadata.indexTerms(tags: fields.tags) { fields.indexedClaims[$0] }
            return (try encode(metadata), terms)
        }
        let metadata = try decodeMetadata(bytes)
        return (try encode(metadata), metadata.indexTerms)
    }
}
