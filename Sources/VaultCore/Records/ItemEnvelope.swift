/// The plaintext of an item record: its name (to rule out look-up collisions), metadata readable
/// with the domain key alone (a token's tags and claims; empty for key-value items), and its value,
/// either as it is or sealed again behind access control.
struct ItemEnvelope {
    static let formatVersion: UInt8 = 1

    enum Content {
        case value([UInt8])
        case accessControlled(AccessControlledSecret)
    }

    let name: String
    let metadata: [UInt8]
    let content: Content

    init(name: String, metadata: [UInt8] = [], content: Content) {
        self.name = name
        self.metadata = metadata
        self.content = content
    }

    init(decoding bytes: [UInt8]) throws {
        var reader = ByteReader(bytes)
        guard try reader.read(UInt8.self) == Self.formatVersion else {
            throw VaultError.unsupportedFormat("an item record has an unknown envelope version")
        }
        name = String(decoding: try reader.readLengthPrefixed(), as: UTF8.self)
        metadata = try reader.readLengthPrefixed()
        switch try reader.read(UInt8.self) {
        case 0: content = .value(try reader.readLengthPrefixed())
        case 1: content = .accessControlled(try AccessControlledSecret(reading: &reader))
        default: throw VaultError.integrity("an item record is malformed")
        }
        try reader.expectEnd()
    }

    var bytes: [UInt8] {
        var writer = ByteWriter(reservingCapacity: name.utf8.count + metadata.count + 64)
        writer.append(Self.formatVersion)
        writer.append(lengthPrefixed: Array(name.utf8))
        writer.append(lengthPrefixed: metadata)
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
