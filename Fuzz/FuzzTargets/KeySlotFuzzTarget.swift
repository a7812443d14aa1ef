import Foundation
import VaultCore
import VaultCrypto

/// The key-slot decoders: a `key_slots` row as `Vault.open` reads it, opened with a key file, and
/// the slot payload (a TLV of keys) that the row's wrapped blob opens to.
///
/// Input layout: `kind u8 | scoped u8 | ops_limit i64 | mem_limit i64 | salt length u8 | salt |
/// payload`, little-endian; missing bytes read as zeros.
package enum KeySlotFuzzTarget: FuzzTarget {
    /// Decodes the payload and checks that its re-encoding is stable, then runs the row through
    /// reading and opening.
    ///
    /// - Parameter input: The bytes.
    package static func run(_ input: [UInt8]) {
        var fields = FuzzInput(input)
        let kind = Int64(fields.read(UInt8.self))
        let scoped = Int64(fields.read(UInt8.self))
        let opsLimit = fields.read(Int64.self)
        let memLimit = fields.read(Int64.self)
        let salt = fields.read(count: Int(fields.read(UInt8.self)))
        let payload = SecureBytes(copying: fields.rest)

        let decoded = try? Vault.Fuzzing.reencodeSlotPayload(payload)
        if let decoded {
            // Duplicates, unknown flag values and key prefixes are dropped, so the first
            // re-encoding may differ from the input; from then on it must be stable.
            let again = try? Vault.Fuzzing.reencodeSlotPayload(decoded.encoded)
            require(again?.encoded == decoded.encoded, "a re-encoded slot payload does not decode to itself")
            require(again?.isScoped == decoded.isScoped, "a re-encoded slot payload changed scope")
        }
        let opened = try? Vault.Fuzzing.openKeySlotRow(
            kind: kind, scoped: scoped, salt: salt, opsLimit: opsLimit, memLimit: memLimit, payload: payload,
            keyFile: KeyFileFixture.url)
        if opened == true {
            require(decoded != nil, "a key slot opened with a payload that does not decode")
        }
    }
}
