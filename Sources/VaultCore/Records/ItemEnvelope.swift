/// The plaintext of an item record: its name (to rule out look-up collisions), metadata readable
/// with the domain key alone (a token's tags and claims; empty for key-value items), the terms the
/// record is indexed under, and its value, either as it is or sealed again behind access control.
///
/// Version 1 has no terms; version 2 (a token record of a format version 3 vault) carries them, so
/// a key rotation can file the record again under its new index key.
struct ItemEnvelope {
    enum Content {
        case value([UInt8])
        case accessControlled(AccessControlledSecret)
    }

    let name: String
    let metadata: [UInt8]
    /// The index terms, or `nil` for a record that is not indexed (a key-value item, a token record
    /// written before format version 3) and for one decoded without them.
    let terms: [IndexTerm]?
    let content: Content

    init(name: String, metadata: [UInt8] = [], terms: [IndexTerm]? = nil, content: Content) {
        self.name = name
        self.metadata = metadata
        self.terms = terms
        self.content = content
    }

    /// Decodes an envelope.
    ///
    /// - Parameters:
    ///   - bytes: The record's plaintext.
    ///   - readingTerms: Whether to read the index terms; a read that needs only the name,
    ///     metadata and value passes `false`, and the terms are checked for their layout only and
    ///     left `nil`.
    init(decoding bytes: [UInt8], readingTerms: Bool = true) throws {
        var reader = ByteReader(bytes)
        let version = try reader.read(UInt8.self)
        guard version == 1 || version == 2 else {
            throw VaultError.unsupportedFormat("an item record has an unknown envelope version")
        }
        name = String(decoding: try reader.readLengthPrefixed(), as: UTF8.self)
        metadata = try reader.readLengthPrefixed()
        if version == 2 {
            let count = Int(try reader.read(UInt32.self))
            // Each term takes at least its two 4-byte lengths: a count beyond that is malformed.
            guard count <= reader.remainingCount / 8 else { throw VaultError.integrity("an item record is malformed") }
            if readingTerms {
                terms = try (0..<count).map { _ in try IndexTerm(reading: &reader) }
            } else {
                for _ in 0..<count { try IndexTerm.skip(in: &reader) }
                terms = nil
            }
        } else {
            terms = nil
        }
        switch try reader.read(UInt8.self) {
        case 0: content = .value(try reader.readLengthPrefixed())
        case 1: content = .accessControlled(try AccessControlledSecret(reading: &reader))
        default: throw VaultError.integrity("an item record is malformed")
        }
        try reader.expectEnd()
    }

    /// The same envelope with other metadata and terms.
    func with(metadata: [UInt8], terms: [IndexTerm]?) -> ItemEnvelope {
        ItemEnvelope(name: name, metadata: metadata, terms: terms, content: content)
    }

    var bytes: [UInt8] {
        let termBytes = terms?.reduce(0) { $0 + $1.field.utf8.count + $1.value.utf8.count + 8 } ?? 0
        let valueBytes: Int
        if case .value(let value) = content { valueBytes = value.count } else { valueBytes = 0 }
        var writer = ByteWriter(reservingCapacity: name.utf8.count + metadata.count + termBytes + valueBytes + 64)
        writer.append(UInt8(terms == nil ? 1 : 2))
        writer.append(lengthPrefixed: name.utf8)
        writer.append(lengthPrefixed: metadata)
        if let terms {
            writer.append(UInt32(terms.count))
            for term in terms { term.write(to: &writer) }
        }
        switch content {
        case .value(let value):
            writer.append(UInt8(0))
            writer.append(lengthPrefixed: value)
        case .accessControlled(let secret):
            writer.append(UInt8(1))
            secret.write(to: &writer)
        }
        return writer.bytes
    }
}
