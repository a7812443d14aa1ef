import Testing
import VaultCrypto

@Suite struct ArrayFillingTests {
    @Test func keepsWhatTheBodyWrote() {
        let bytes = [UInt8](filling: 300) { buffer, initialized in
            #expect(buffer.count == 300)
            for index in buffer.indices { buffer[index] = UInt8(truncatingIfNeeded: index * 7) }
            initialized = 300
        }
        #expect(bytes == (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) })
    }

    @Test func keepsOnlyTheInitializedPrefix() {
        let bytes = [UInt8](filling: 64) { buffer, initialized in
            for index in 0..<10 { buffer[index] = UInt8(index + 1) }
            initialized = 10
        }
        #expect(bytes == Array(1...10))
    }

    @Test func runsTheBodyOnAnEmptyBufferForNoBytes() {
        var ran = false
        let bytes = [UInt8](filling: 0) { buffer, initialized in
            ran = true
            #expect(buffer.isEmpty)
            initialized = 0
        }
        #expect(ran)
        #expect(bytes.isEmpty)
    }

    @Test func passesTheBodysErrorOn() {
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            _ = try [UInt8](filling: 16) { _, _ in throw Refused() }
        }
    }
}
