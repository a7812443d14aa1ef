import FuzzTargets

/// libFuzzer's entry point: one input through the token-response decoder (RFC 6749 §5.1).
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzDriver.test(TokenResponseFuzzTarget.self, data, size)
}

/// Fuzzes the token-response decoder (RFC 6749 §5.1); see `FuzzDriver`.
@main enum FuzzTokenResponse {
    static func main() {
        FuzzDriver.main(testOneInput)
    }
}
