import Foundation
import VaultCore

/// A whole vault file: the SQLite file format, the `vault_header` and `key_slots` rows, and
/// whatever a key-file unlock then reads (the integrity digest, records, slots, factors).
///
/// The input is written to a fresh file (mode 0600) and opened with the key file of the committed
/// fixture vault, whose copy seeds the corpus; key-file slots run no Argon2, so an input is cheap.
package enum VaultFileFuzzTarget: FuzzTarget {
    private static let vault = KeyFileFixture.folder.appendingPathComponent("fuzz.vault")

    /// Opens `input` as a vault file and reads everything a key-file unlock can reach.
    ///
    /// - Parameter input: The file's bytes.
    package static func run(_ input: [UInt8]) {
        removeFiles()
        defer { removeFiles() }
        let keyFile = KeyFileFixture.url
        guard
            FileManager.default.createFile(
                atPath: vault.path, contents: Data(input), attributes: [.posixPermissions: 0o600])
        else { fatalError("cannot write \(vault.path)") }
        guard let opened = try? Vault.open(at: vault, unlock: .keyFile(keyFile)) else { return }
        _ = try? opened.verify()
        _ = try? opened.keySlots()
        _ = try? opened.enrolledFactors()
        for group in [nil, "com.example.fixture"] {
            for name in (try? opened.itemNames(accessGroup: group)) ?? [] {
                _ = try? opened.get(SecretKey<String>(name, policy: VaultPolicy(accessGroup: group)))
            }
        }
    }

    private static func removeFiles() {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: vault.path + suffix)
        }
    }
}
