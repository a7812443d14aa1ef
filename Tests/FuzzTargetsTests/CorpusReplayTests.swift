import Foundation
import FuzzTargets
import Testing

/// Every committed corpus file, run through its fuzz target as libFuzzer would run it: a
/// regression test for each input that once crashed, and a check that the seeds stay valid.
@Suite struct CorpusReplayTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fuzz/Corpus").standardizedFileURL

    func replay(_ target: (some FuzzTarget).Type, _ folder: String) throws {
        let files = try FuzzDriver.inputs(in: [Self.corpus.appendingPathComponent(folder).path])
        #expect(!files.isEmpty, "no corpus files in \(folder)")
        for file in files {
            target.run(try [UInt8](Data(contentsOf: file)))
        }
    }

    @Test func itemRecordCorpus() throws { try replay(ItemRecordFuzzTarget.self, "FuzzItemRecord") }
    @Test func keySlotCorpus() throws { try replay(KeySlotFuzzTarget.self, "FuzzKeySlot") }
    @Test func vaultFileCorpus() throws { try replay(VaultFileFuzzTarget.self, "FuzzVaultFile") }
    @Test func tokenResponseCorpus() throws { try replay(TokenResponseFuzzTarget.self, "FuzzTokenResponse") }
    @Test func jwtCorpus() throws { try replay(JWTFuzzTarget.self, "FuzzJWT") }
    @Test func tokenRecordCorpus() throws { try replay(TokenRecordFuzzTarget.self, "FuzzTokenRecord") }
}
