/// The plaintext of a key-value record: the item's name (to rule out look-up collisions) and its
/// JSON-encoded value.
struct ItemEnvelope {
    static let formatVersion: UInt8 = 1

    let name: String
    let value: [UInt8]

    init(name: String, value: [UInt8]) {
        self.name = name
        self.value = value
    }

    init(decoding bytes: [UInt8]) throws {
        var reader = ByteReader(bytes)
        guard try reader.read(UInt8.self) == Self.formatVersion else {
            throw VaultError.unsupportedFormat("a key-value record has an unknown envelope version")
        }
        name = String(decoding: try reader.readLengthPrefixed(), as: UTF8.self)
        value = try reader.readLengthPrefixed()
        try reader.expectEnd()
    }

    var bytes: [UInt8] {
        var writer = ByteWriter(reservingCapacity: name.utf8.count + value.count + 9)
        writer.append(Self.formatVersion)
        writer.append(lengthPrefixed: Array(name.utf8))
        writer.append(lengthPrefixed: value)
        return writer.bytes
    }
}
