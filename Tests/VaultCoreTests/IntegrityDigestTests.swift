import Testing
import VaultCore
import VaultCrypto

/// The digest is a 256-bit number stored as 32 little-endian bytes: its sums must carry and borrow
/// across every byte as plain arithmetic modulo 2^256 does, or a file written before would no
/// longer match.
@Suite struct IntegrityDigestTests {
    /// Adding or subtracting random hashes gives what byte-by-byte arithmetic with carries gives,
    /// and subtracting what was added gives the digest back.
    @Test func sumsAreArithmeticModulo2To256() throws {
        for _ in 0..<500 {
            let start = SecureRandom.bytes(count: 32)
            let hash = SecureRandom.bytes(count: 32)
            var digest = try IntegrityDigest(bytes: start)
            #expect(digest.bytes == start)
            digest.add(hash)
            #expect(digest.bytes == Self.sum(start, hash, subtracting: false))
            digest.subtract(hash)
            #expect(digest.bytes == start)
            digest.subtract(hash)
            #expect(digest.bytes == Self.sum(start, hash, subtracting: true))
        }
    }

    /// A carry or borrow runs through all four words and wraps around.
    @Test func carriesAndBorrowsCrossEveryWord() throws {
        let one = [1] + [UInt8](repeating: 0, count: 31)
        var digest = try IntegrityDigest(bytes: [UInt8](repeating: 0xFF, count: 32))
        digest.add(one)
        #expect(digest == IntegrityDigest())
        #expect(digest.bytes == [UInt8](repeating: 0, count: 32))
        digest.subtract(one)
        #expect(digest.bytes == [UInt8](repeating: 0xFF, count: 32))
    }

    @Test func onlyThirtyTwoBytesMakeADigest() {
        #expect(throws: VaultError.self) { try IntegrityDigest(bytes: [UInt8](repeating: 0, count: 31)) }
        #expect(throws: VaultError.self) { try IntegrityDigest(bytes: [UInt8](repeating: 0, count: 33)) }
    }

    /// `left + right` (or `left - right`) on 32 little-endian bytes, one byte at a time.
    private static func sum(_ left: [UInt8], _ right: [UInt8], subtracting: Bool) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: 32)
        var carry = 0
        for index in 0..<32 {
            let value = Int(left[index]) + (subtracting ? -Int(right[index]) : Int(right[index])) + carry
            result[index] = UInt8(truncatingIfNeeded: value)
            carry = value < 0 ? -1 : value > 255 ? 1 : 0
        }
        return result
    }
}
