import FuzzTargets

/// libFuzzer's entry point: one input through the item-record decoders (item envelopes, factor records, sealed boxes).
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzDriver.test(ItemRecordFuzzTarget.self, data, size)
}

/// Fuzzes the item-record decoders (item envelopes, factor records, sealed boxes); see `FuzzDriver`.
@main enum FuzzItemRecord {
    static func main() {
        FuzzDriver.main(testOneInput)
    }
}
