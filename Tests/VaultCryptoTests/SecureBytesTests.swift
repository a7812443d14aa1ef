import Testing
import VaultCrypto

@Suite struct SecureBytesTests {
    @Test func descriptionNeverShowsBytes() {
        let secret = SecureBytes(copying: Array("hunter2-hunter2".utf8))
        #expect(!secret.description.contains("hunter2"))
        #expect(secret.description.contains("15 bytes"))
        #expect(!SymmetricKey(copying: secret.withUnsafeBytes { Array($0) }).description.contains("hunter2"))
    }

    @Test func equalityComparesContents() {
        let bytes: [UInt8] = Array(0..<32)
        #expect(SecureBytes(copying: bytes) == SecureBytes(copying: bytes))
        #expect(SecureBytes(copying: bytes) != SecureBytes(copying: bytes.reversed()))
        #expect(SecureBytes(copying: bytes) != SecureBytes(copying: bytes.dropLast()))
    }

    @Test func pooledAndLargeBlocksHoldTheirContents() {
        // Many small keys share slabs; a large secret gets its own allocation. None may overlap.
        let small = (0..<300).map { index in SecureBytes(copying: [UInt8](repeating: UInt8(index % 251), count: 64)) }
        let large = SecureBytes(copying: [UInt8](repeating: 0xAB, count: 5000))
        for (index, secret) in small.enumerated() {
            #expect(secret.withUnsafeBytes { $0.allSatisfy { $0 == UInt8(index % 251) } })
        }
        #expect(large.withUnsafeBytes { $0.allSatisfy { $0 == 0xAB } })
    }

    @Test func reusedBlocksStartZeroed() {
        do { _ = SecureBytes(copying: [UInt8](repeating: 0xFF, count: 64)) }
        let fresh = SecureBytes(count: 64) { _ in }
        #expect(fresh.withUnsafeBytes { $0.allSatisfy { $0 == 0 } })
    }

    @Test func constantTimeCompare() {
        #expect(safeCompare([1, 2, 3], [1, 2, 3]))
        #expect(!safeCompare([1, 2, 3], [1, 2, 4]))
        #expect(!safeCompare([1, 2, 3], [1, 2]))
        #expect(safeCompare([], []))
    }

    @Test func randomBytesDiffer() {
        #expect(SecureRandom.bytes(count: 32) != SecureRandom.bytes(count: 32))
        #expect(SecureBytes.random(count: 32) != SecureBytes.random(count: 32))
    }
}

@Suite struct SecureBytesFailureTests {
    struct Refused: Error {}

    // A throwing initializer must release its block exactly once: a double release would hand the
    // same memory to two live secrets.
    @Test func failedInitialisersNeverShareBlocks() {
        for _ in 0..<200 {
            _ = try? SecureBytes(count: 32) { _ in throw Refused() }
        }
        let live = (0..<200).map { index in SecureBytes(copying: [UInt8](repeating: UInt8(index), count: 32)) }
        for (index, secret) in live.enumerated() {
            #expect(secret.withUnsafeBytes { $0.allSatisfy { $0 == UInt8(index) } })
        }
    }
}
