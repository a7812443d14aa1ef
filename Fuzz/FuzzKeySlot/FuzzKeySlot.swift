import FuzzTargets

/// libFuzzer's entry point: one input through the key-slot row and slot-payload decoders.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzDriver.test(KeySlotFuzzTarget.self, data, size)
}

/// Fuzzes the key-slot row and slot-payload decoders; see `FuzzDriver`.
@main enum FuzzKeySlot {
    static func main() {
        FuzzDriver.main(testOneInput)
    }
}
