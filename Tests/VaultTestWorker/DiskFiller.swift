import Foundation
import TokenVault

/// Fills the file system a new vault is on until a write fails, then shows what survived: for the
/// full-disk test, which runs this on a small tmpfs of its own.
///
/// Prints `begin`/`ack set <name> <value>` per write and `failed set <name> <error>` for the one
/// that failed; then `item <name> <value>` for every item read back from the same vault, and
/// `reopened <name> <value>` from the vault opened again; after freeing a filler file, the next
/// write is `ack`ed (or `failed`) as `recovered`.
enum DiskFiller {
    static func run(vault url: URL, keyFile: URL, filler: URL, valueSize: Int) throws {
        try KeyFile.generate(at: keyFile)
        let vault = try Vault.create(at: url, unlock: .keyFile(keyFile))
        // Room to free later, so the vault can be shown to work again.
        guard FileManager.default.createFile(atPath: filler.path, contents: Data(count: 128 * 1024)) else {
            throw WorkerFailure("cannot create the filler file")
        }
        for index in 0..<100_000 {
            let name = "item-\(index)"
            let value = "\(index)-" + String(repeating: "x", count: valueSize)
            emit("begin set \(name) \(value)")
            do {
                try vault.set(value, for: SecretKey<String>(name))
                emit("ack set \(name) \(value)")
            } catch {
                emit("failed set \(name) \(String(describing: error).replacingOccurrences(of: "\n", with: " "))")
                break
            }
        }
        try printItems(of: vault, as: "item")
        try printItems(of: try Vault.open(at: url, unlock: .keyFile(keyFile)), as: "reopened")
        try FileManager.default.removeItem(at: filler)
        do {
            try vault.set("after", for: SecretKey<String>("recovered"))
            emit("ack set recovered after")
        } catch {
            emit("failed set recovered \(error)")
        }
    }

    private static func printItems(of vault: Vault, as label: String) throws {
        _ = try vault.verify()
        for name in try vault.itemNames().sorted() {
            emit("\(label) \(name) \(try vault.get(SecretKey<String>(name)) ?? "-")")
        }
    }
}
