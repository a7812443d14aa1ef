import Foundation
import TestSupport
import Testing

/// The CLI closes the vault before it exits, so runs leave no write-ahead log behind and the file
/// grows with what is stored, not with how many commands ran.
@Suite struct CLILogSizeTests {
    let directory = TemporaryDirectory()

    static func size(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
    }

    @Test func threeHundredSecretSetsLeaveNoLogAndOneAndAHalfTimesTheSealedBytes() throws {
        let vault = directory.file("vault.db").path
        let keyFile = directory.file("vault.key").path
        let valueFile = directory.file("value")
        let unlock = ["--vault", vault, "--key-file", keyFile]
        try Data((0..<1_024).map { _ in UInt8.random(in: 0...255) }).write(to: valueFile)
        #expect(try CLIProcess.run(["init", "--no-passphrase"] + unlock).status == 0)
        let empty = try #require(Self.size(vault))

        var leftBehind: [String] = []
        for index in 0..<300 {
            let result = try CLIProcess.run(["secret", "set", "s\(index)", "--value-file", valueFile.path] + unlock)
            #expect(result.status == 0)
            for suffix in ["-wal", "-shm"] where Self.size(vault + suffix) != nil {
                leftBehind.append("\(suffix) after run \(index)")
            }
        }
        #expect(leftBehind.isEmpty, "\(leftBehind.prefix(3))")

        let onDisk = try #require(Self.size(vault))
        let sealed = try RawVaultFile(URL(fileURLWithPath: vault)).records().filter { $0.kind == 1 }
            .map(\.sealed.count)
        #expect(sealed.count == 300)
        let meanSealed = Double(sealed.reduce(0, +)) / Double(sealed.count)
        // Left out: the pages every vault has (one per table and index), 0.3 times a sealed secret here.
        let perSecret = Double(onDisk - empty) / 300
        #expect(perSecret <= 1.5 * meanSealed, "\(perSecret) bytes on disk per secret of \(meanSealed) sealed")
    }
}
