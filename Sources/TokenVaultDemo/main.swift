// `make demo`: the vault's main job, end to end, on a fresh vault in a temporary XDG data
// directory. Prints each step; never prints a secret.
import Foundation
import TokenVault

struct ServiceAccount: Codable, Sendable {
    var clientID: String
    var clientSecret: String
}

func step(_ text: String) { print("==> \(text)") }

let dataHome =
    ProcessInfo.processInfo.environment["TOKENVAULT_DEMO_DIR"].map { URL(fileURLWithPath: $0) }
    ?? FileManager.default.temporaryDirectory.appendingPathComponent("tokenvault-demo-\(UUID().uuidString)")
let vaultURL = dataHome.appendingPathComponent("tokenvault/vault.db")
let passphrase: Passphrase = "demo passphrase, not a real one"

do {
    step("Creating a vault at \(vaultURL.path) (Argon2id INTERACTIVE)")
    var vault = try Vault.create(at: vaultURL, unlock: .passphrase(passphrase), keyDerivation: .interactive)
    let mode = try FileManager.default.attributesOfItem(atPath: vaultURL.path)[.posixPermissions] as? Int ?? 0
    print("    file mode \(String(mode, radix: 8))")

    step("Storing an API key (String) and a service account (Codable struct)")
    let apiKey = SecretKey<String>("payments.apiKey")
    let account = SecretKey<ServiceAccount>("billing.serviceAccount")
    try vault.set("sk_demo_\(UUID().uuidString)", for: apiKey)
    try vault.set(ServiceAccount(clientID: "billing-service", clientSecret: UUID().uuidString), for: account)

    step("Locking: reads now fail")
    vault.lock()
    do { _ = try vault.get(apiKey) } catch { print("    get -> \(error.localizedDescription)") }

    step("Closing and reopening with the passphrase")
    vault = try Vault.open(at: vaultURL, unlock: .passphrase(passphrase))
    print("    api key present: \(try vault.contains(apiKey)), \(try vault.get(apiKey)?.count ?? 0) characters")
    print("    service account client id: \(try vault.get(account)?.clientID ?? "-")")

    step("Changing the passphrase (one key slot re-wrapped, no record re-encrypted)")
    let newPassphrase: Passphrase = "a new demo passphrase"
    try vault.changeUnlock(from: .passphrase(passphrase), to: .passphrase(newPassphrase))
    do { _ = try Vault.open(at: vaultURL, unlock: .passphrase(passphrase)) } catch {
        print("    old passphrase -> \(error.localizedDescription)")
    }

    step("Verifying every record against the integrity digest")
    let report = try vault.verify()
    print(
        "    \(report.recordCount) records, \(report.authenticatedRecordCount) authenticated, "
            + "\(report.keySlotCount) key slot(s), generation \(report.generation)")

    step("Done. The demo vault is at \(vaultURL.path)")
} catch {
    FileHandle.standardError.write(Data("demo failed: \(error.localizedDescription)\n".utf8))
    exit(1)
}
