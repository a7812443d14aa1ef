import VaultCrypto

/// The plaintext of a slot's grant: a header binding it to one vault, slot and epoch, then the
/// ``SlotPayload``, all in secure memory.
///
/// `crypto_box_seal` takes no associated data, so the binding lives inside the sealed bytes: a
/// grant copied to another slot, vault or epoch opens to a header that does not match and is refused.
enum SlotGrant {
    private static let tag = Array("TVG2".utf8)
    private static var headerByteCount: Int { tag.count + 2 * VaultFormat.idByteCount + 8 }

    static func plaintext(_ payload: SlotPayload, slotID: [UInt8], epoch: UInt64, vaultID: [UInt8]) -> SecureBytes {
        let header = header(slotID: slotID, epoch: epoch, vaultID: vaultID)
        let encoded = payload.encoded()
        return SecureBytes(count: header.count + encoded.count) { out in
            out.copyBytes(from: header)
            encoded.withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: out[header.count...]).copyMemory(from: $0)
            }
        }
    }

    /// The payload of an opened grant, or `nil` when its header names another vault, slot or epoch.
    static func payload(_ opened: SecureBytes, slotID: [UInt8], epoch: UInt64, vaultID: [UInt8]) throws
        -> SlotPayload?
    {
        let expected = header(slotID: slotID, epoch: epoch, vaultID: vaultID)
        let body: SecureBytes? = opened.withUnsafeBytes { bytes in
            guard bytes.count > expected.count, safeCompare(Array(bytes.prefix(expected.count)), expected) else {
                return nil
            }
            return SecureBytes(copying: bytes[expected.count...])
        }
        return try body.map(SlotPayload.init(decoding:))
    }

    private static func header(slotID: [UInt8], epoch: UInt64, vaultID: [UInt8]) -> [UInt8] {
        var writer = ByteWriter(reservingCapacity: headerByteCount)
        writer.append(raw: tag)
        writer.append(raw: vaultID)
        writer.append(raw: slotID)
        writer.append(epoch)
        return writer.bytes
    }
}
