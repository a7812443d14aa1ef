/// A 256-bit sum of keyed record hashes (an MSet-Add-Hash), updated incrementally on each write.
///
/// Adding a record adds its hash; removing one subtracts it. Without the integrity key nobody can
/// compute a record's hash, and the digest is stored sealed, so deleting, re-adding or rolling
/// back single rows changes the sum in a way an attacker cannot hide.
package struct IntegrityDigest: Equatable {
    /// The sum as four 64-bit words, least significant first; each is stored little-endian.
    private var words: SIMD4<UInt64> = .zero

    package static let byteCount = 32

    package init() {}

    package init(bytes: [UInt8]) throws {
        guard bytes.count == Self.byteCount else {
            throw VaultError.integrity("the integrity digest is malformed")
        }
        words = Self.words(of: bytes)
    }

    package var bytes: [UInt8] {
        let littleEndian = SIMD4(
            words[0].littleEndian, words[1].littleEndian, words[2].littleEndian, words[3].littleEndian)
        return withUnsafeBytes(of: littleEndian) { Array($0) }
    }

    /// Adds a 32-byte record hash modulo 2^256.
    package mutating func add(_ hash: [UInt8]) {
        let other = Self.words(of: hash)
        var carry: UInt64 = 0
        for index in 0..<4 {
            let (partial, overflow1) = words[index].addingReportingOverflow(other[index])
            let (sum, overflow2) = partial.addingReportingOverflow(carry)
            words[index] = sum
            carry = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
        }
    }

    /// Subtracts a 32-byte record hash modulo 2^256.
    package mutating func subtract(_ hash: [UInt8]) {
        let other = Self.words(of: hash)
        var borrow: UInt64 = 0
        for index in 0..<4 {
            let (partial, overflow1) = words[index].subtractingReportingOverflow(other[index])
            let (difference, overflow2) = partial.subtractingReportingOverflow(borrow)
            words[index] = difference
            borrow = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
        }
    }

    /// The four little-endian words of 32 bytes.
    private static func words(of bytes: [UInt8]) -> SIMD4<UInt64> {
        precondition(bytes.count == byteCount, "a record hash is 32 bytes")
        return bytes.withUnsafeBytes { raw in
            SIMD4(
                UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
                UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)),
                UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self)))
        }
    }
}
