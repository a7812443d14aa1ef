// tokenvault-bench: seal/open through the library beside raw libsodium in the same run, and
// vault set/get. `swift run -c release tokenvault-bench [--quick]`.
// The full harness (scaling, Argon2 presets, 100k-token vaults, JSON output) is issue 7.
import Foundation
import TokenVault
import VaultCrypto

let quick = CommandLine.arguments.contains("--quick")
let minimumSeconds = quick ? 0.2 : 1.0

/// Runs `body` in batches until `minimumSeconds` pass; returns operations per second.
func measure(_ body: () throws -> Void) rethrows -> Double {
    for _ in 0..<100 { try body() }  // warm-up
    var operations = 0
    let start = ContinuousClock.now
    var elapsed = Duration.zero
    repeat {
        for _ in 0..<100 { try body() }
        operations += 100
        elapsed = ContinuousClock.now - start
    } while elapsed < .seconds(minimumSeconds)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return Double(operations) / seconds
}

func row(_ columns: [String]) {
    print(
        columns.enumerated().map {
            $0.offset == 0
                ? $0.element.padding(toLength: 14, withPad: " ", startingAt: 0)
                : String(repeating: " ", count: max(0, 14 - $0.element.count)) + $0.element
        }.joined())
}

print("TokenVault bench (\(quick ? "quick" : "full")), \(ProcessInfo.processInfo.activeProcessorCount) cores")
print("\nXChaCha20-Poly1305 seal, library vs raw libsodium (same key, AD, payload)")
row(["payload", "library op/s", "raw op/s", "time lib/raw", "library MB/s"])
let key = SymmetricKey()
let keyBytes = key.withUnsafeBytes { Array($0) }
let associatedData = [UInt8](repeating: 7, count: 64)
for size in [64, 256, 1024, 4096, 65536, 1 << 20] {
    let payload = [UInt8](repeating: 0x5A, count: size)
    let library = try measure { _ = try XChaCha20Poly1305.seal(payload, using: key, authenticating: associatedData) }
    var output = [UInt8](repeating: 0, count: size + 16)
    let raw = measure {
        let nonce = SecureRandom.bytes(count: 24)  // the library draws a fresh nonce per seal too
        payload.withUnsafeBytes { message in
            keyBytes.withUnsafeBytes { k in
                nonce.withUnsafeBytes { n in
                    associatedData.withUnsafeBytes { ad in
                        output.withUnsafeMutableBytes {
                            RawSodiumBaseline.seal(message, key: k, nonce: n, associatedData: ad, into: $0)
                        }
                    }
                }
            }
        }
    }
    row([
        size >= 1024 ? "\(size / 1024) KiB" : "\(size) B", String(format: "%.0f", library), String(format: "%.0f", raw),
        String(format: "%.2fx", raw / library), String(format: "%.1f", library * Double(size) / 1e6),
    ])
}

print("\nVault key-value store (in memory and on disk, durable commits)")
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tokenvault-bench-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: directory) }
let keyFile = directory.appendingPathComponent("bench.key")
try KeyFile.generate(at: keyFile)
for (name, vault) in [
    ("in memory", Vault.inMemory()),
    ("on disk", try Vault.create(at: directory.appendingPathComponent("bench.db"), unlock: .keyFile(keyFile))),
] {
    let value = String(repeating: "t", count: 2048)
    var counter = 0
    let set = try measure {
        counter += 1
        try vault.set(value, for: SecretKey<String>("token-\(counter % 1000)"))
    }
    let get = try measure {
        counter += 1
        _ = try vault.get(SecretKey<String>("token-\(counter % 1000)"))
    }
    print("  \(name): set \(String(format: "%.0f", set)) op/s, get \(String(format: "%.0f", get)) op/s (2 KiB values)")
}
