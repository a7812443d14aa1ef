import Testing
import VaultCore
import VaultCrypto

/// Record ids and term hashes held as two words: the same bytes, in the order both databases give
/// blobs.
@Suite struct SixteenBytesTests {
    /// Pairs that differ anywhere, and pairs that differ in one byte of either word, compare as
    /// their bytes do, and give their bytes back.
    @Test func wordsKeepTheBytesAndTheirOrder() throws {
        for round in 0..<2_000 {
            let first = SecureRandom.bytes(count: 16)
            var second = round.isMultiple(of: 2) ? SecureRandom.bytes(count: 16) : first
            if !round.isMultiple(of: 2) { second[round / 2 % 16] = UInt8.random(in: 0...255) }
            let (left, right) = (try #require(SixteenBytes(first)), try #require(SixteenBytes(second)))
            #expect(left.bytes == first)
            #expect((left < right) == first.lexicographicallyPrecedes(second))
            #expect((left == right) == (first == second))
        }
    }

    @Test func onlySixteenBytesMakeWords() {
        #expect(SixteenBytes([UInt8](repeating: 1, count: 15)) == nil)
        #expect(SixteenBytes([UInt8](repeating: 1, count: 17)) == nil)
        #expect(SixteenBytes([]) == nil)
    }
}
