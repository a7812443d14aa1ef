/// Turns a token record's metadata bytes into the value a layer above works with, once per record
/// version: ``Vault/tokenMetadata(decodedBy:)`` keeps what it returns beside the cached record.
///
/// The decoder's type is the key its values are kept under, so a decoder never gets another
/// decoder's values, even one that decodes to the same type. The cache keeps the values of the
/// decoder used last: two decoders used in turn decode again each time.
package protocol TokenMetadataDecoder: SendableMetatype {
    /// What one record decodes to.
    associatedtype Decoded: Sendable

    /// Decodes one record's metadata. It must depend on `record` alone: its result is reused for
    /// as long as the record is at the same version in the same unlock. It may run on several
    /// threads at once, each with another record.
    ///
    /// - Parameter record: The record, as opened.
    /// - Returns: The decoded value.
    /// - Throws: The decoder's own error for bytes it cannot decode; the whole listing then fails
    ///   and nothing is kept.
    static func decode(_ record: TokenRecordMetadata) throws -> Decoded
}
