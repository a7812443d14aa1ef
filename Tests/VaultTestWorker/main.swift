// A separate process that works on a vault file, for the cross-process tests.
//
//   VaultTestWorker increment <vault> <key file> <item name> <count>
//   VaultTestWorker fill <vault> <key file> <name prefix> <count>
//
// Prints "ok" and exits 0 on success; prints the error and exits 1 otherwise.
import Foundation
import TokenVault

let arguments = CommandLine.arguments
guard arguments.count == 6, let count = Int(arguments[5]) else {
    print("usage: VaultTestWorker increment|fill <vault> <key file> <name> <count>")
    exit(2)
}
let command = arguments[1]
do {
    let vault = try Vault.open(
        at: URL(fileURLWithPath: arguments[2]), unlock: .keyFile(URL(fileURLWithPath: arguments[3])),
        configuration: .init(busyTimeout: .seconds(60)))
    switch command {
    case "increment":
        let counter = SecretKey<Int>(arguments[4])
        for _ in 0..<count {
            try vault.update(counter) { ($0 ?? 0) + 1 }
        }
    case "fill":
        for index in 0..<count {
            try vault.set("value-\(index)", for: SecretKey<String>("\(arguments[4])-\(index)"))
        }
    default:
        print("unknown command \(command)")
        exit(2)
    }
    print("ok")
} catch {
    print("error: \(error)")
    exit(1)
}
