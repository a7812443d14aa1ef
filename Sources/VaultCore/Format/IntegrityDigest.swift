/// A 256-bit sum of keyed record hashes (an MSet-Add-Hash), updated incrementally on each write.
///
/// Adding a record adds its hash; removing one subtracts it. Without the integrity key nobody can
/// compute a record's hash, and the digest is stored sealed, so deleting, re-adding or rolling
/// back single rows changes the sum in a way an attacker cannot hide.
struct IntegrityDigest: Equatable {
    private(set) var limbs: [UInt64] = [0, 0, 0, 0]

    static let byteCount = 32

    init() {}

    init(bytes: [UInt8]) throws {
        guard bytes.count == Self.byteCount else {
            throw VaultError.integrity("the integrity digest is malformed")
        }
        var reader = ByteReader(bytes)
        limbs = try (0..<4).map { _ in try reader.read(UInt64.self) }
    }

    var bytes: [UInt8] {
        var writer = ByteWriter(reservingCapacity: Self.byteCount)
        for limb in limbs { writer.append(limb) }
        return writer.bytes
    }

    /// Adds a 32-byte record hash modulo 2^256.
    mutating func add(_ hash: [UInt8]) {
        let other = Self.limbs(of: hash)
        var carry: UInt64 = 0
        for index in 0..<4 {
            let (partial, overflow1) = limbs[index].addingReportingOverflow(other[index])
            let (sum, overflow2) = partial.addingReportingOverflow(carry)
            limbs[index] = sum
            carry = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
        }
    }

    /// Subtracts a 32-byte record hash modulo 2^256.
    mutating func subtract(_ hash: [UInt8]) {
        let other = Self.limbs(of: hash)
        var borrow: UInt64 = 0
        for index in 0..<4 {
            let (partial, overflow1) = limbs[index].subtractingReportingOverflow(other[index])
            let (difference, overflow2) = partial.subtractingReportingOverflow(borrow)
            limbs[index] = difference
            borrow = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
        }
    }

    private static func limbs(of hash: [UInt8]) -> [UInt64] {
        precondition(hash.count == byteCount, "a record hash is 32 bytes")
        return (0..<4).map { limb in
            (0..<8).reduce(UInt64(0)) { value, index in
                value | UInt64(hash[limb * 8 + index]) << (8 * index)
            }
        }
    }
}
