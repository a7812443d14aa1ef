import FuzzTargets

/// libFuzzer's entry point: one input through the JWT decoder and its claims.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzDriver.test(JWTFuzzTarget.self, data, size)
}

/// Fuzzes the JWT decoder and its claims; see `FuzzDriver`.
@main enum FuzzJWT {
    static func main() {
        FuzzDriver.main(testOneInput)
    }
}
