import FuzzTargets

/// libFuzzer's entry point: one input through the token-record decoders (binary and legacy JSON, token and metadata).
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzDriver.test(TokenRecordFuzzTarget.self, data, size)
}

/// Fuzzes the token-record decoders (binary and legacy JSON, token and metadata); see `FuzzDriver`.
@main enum FuzzTokenRecord {
    static func main() {
        FuzzDriver.main(testOneInput)
    }
}
