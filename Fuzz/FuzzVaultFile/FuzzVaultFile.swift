import FuzzTargets

/// libFuzzer's entry point: one input through the whole vault file, opened with the fixture's key file.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzDriver.test(VaultFileFuzzTarget.self, data, size)
}

/// Fuzzes the whole vault file, opened with the fixture's key file; see `FuzzDriver`.
@main enum FuzzVaultFile {
    static func main() {
        FuzzDriver.main(testOneInput)
    }
}
