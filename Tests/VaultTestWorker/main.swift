// A separate process that works on a vault file, for the cross-process tests.
//
//   VaultTestWorker increment <vault> <key file> <item name> <count>
//   VaultTestWorker fill <vault> <key file> <name prefix> <count>
//   VaultTestWorker set-retrying <vault> <key file> <name prefix> <count>
//       as `fill`, but retries a write that fails with a storage error (a database server
//       restarting) for up to a minute, printing `retry <i>` each time and `ack <i>` once it is done
//   VaultTestWorker store-credential <vault> <key file> <ID-token subject> <count>   (prints each id)
//   VaultTestWorker refresh <vault> <key file> <credential id> <grace seconds>   (prints the access token)
//   VaultTestWorker force-refresh <vault> <key file> <credential id> <lease seconds>
//       refreshes now with a refresh lease of that many seconds (0: it has expired before the
//       server answers), then prints the access token
//   VaultTestWorker tag <vault> <key file> <credential id> 0
//       replaces the credential's tags with ["note": "set by the worker"] and the ones it had
//   VaultTestWorker mixed <vault> <key file> <tag> <count>
//       random mixed operations, each line-logged as it begins and is acknowledged (MixedWorkload);
//       the seed is $WORKER_SEED, or random, and is printed first
//   VaultTestWorker fill-disk <vault> <key file> <filler file> <value size>
//       creates the vault and writes until the disk is full, then prints what survived (DiskFiller)
//   VaultTestWorker hold-lease <vault> <key file> <lease name> <seconds>
//       takes the lease, prints "held", then waits (to be killed)
//   VaultTestWorker wipe-check <vault> <key file> lock|idle 0
//       reads items to fill the key caches, notes where every key lives, then locks the vault
//       (`lock`) or lets the idle timeout pass on a manual clock (`idle`), and prints one line per
//       key (the device secret and the credential token cache key included):
//       `<label>: before=nonzero|zero after=nonzero|zero`. A process of its own, so no other
//       test reuses the freed secure-memory blocks before they are read.
//   VaultTestWorker write-fixture <vault> <key file> - 0
//       writes the committed format fixture (Tests/TestSupport/Resources/Fixtures): run it only
//       when the format version changes, and keep the old fixture for the migration test.
//
// <vault> is a vault file, or a file ending in `.pgconn` holding the libpq connection string of a
// vault in PostgreSQL (not on the command line, where other users could read its password).
//
// Prints "ok" and exits 0 on success; prints the error and exits 1 otherwise.
import Foundation
import Locking
import TokenVault
import VaultCore

func writeFixture(vault url: URL, keyFile: URL) throws {
    try KeyFile.generate(at: keyFile)
    let vault = try Vault.create(at: url, unlock: .keyFile(keyFile))
    try vault.set("fixture-api-key", for: SecretKey<String>("api-key"))
    try vault.set(42, for: SecretKey<Int>("counter"))
    try vault.set(
        "group-value", for: SecretKey<String>("shared", policy: VaultPolicy(accessGroup: "com.example.fixture")))
    try Credential.use(vault)
    let response = try JSONSerialization.data(withJSONObject: [
        "access_token": "fixture-access-token", "token_type": "Bearer", "expires_in": 3600,
        "refresh_token": "fixture-refresh-token", "id_token": unsignedJWT(["sub": "fixture@example.com"]),
    ])
    let context = Token.Context(issuer: URL(string: "https://issuer.example.com")!, clientID: "fixture")
    try Credential.store(
        Token(response: response, context: context, issuedAt: Date(timeIntervalSince1970: 1_800_000_000)),
        tags: ["fixture": "yes"])
    // Release the vault (the storage holds it) so closing checkpoints everything into one file.
    Credential.tokenStorage = InMemoryTokenStorage()
}

/// A clock that moves only when told, for the idle case of `wipe-check`.
final class SteppedClock: VaultClock {
    private let time = Locked<Duration>(.seconds(1000))
    var now: Duration { time.withLock { $0 } }
    func advance(by duration: Duration) { time.withLock { $0 += duration } }
}

/// Whether any byte of a key buffer is non-zero. The buffers are pooled secure-memory blocks that
/// stay mapped after release, so reading them after lock is safe.
func isNonZero(_ location: KeyBufferLocation) -> Bool {
    let bytes = UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: location.address), count: location.count)
    return bytes.contains { $0 != 0 }
}

func wipeCheck(vault url: URL, keyFile: URL, mode: String) throws {
    let clock = SteppedClock()
    let vault = try Vault.open(
        at: url, unlock: .keyFile(keyFile),
        configuration: .init(
            idleTimeout: mode == "idle" ? .seconds(60) : nil, clock: clock,
            deviceSecretURL: url.deletingLastPathComponent().appendingPathComponent("device.secret")))
    for accessibility in [Accessibility.whenUnlocked, .afterFirstUnlock, .afterFirstUnlockThisDeviceOnly] {
        let key = SecretKey<String>("\(accessibility)", policy: VaultPolicy(accessibility: accessibility))
        try vault.set("value", for: key)
        _ = try vault.get(key)
    }
    // A token loaded through the facade: the credential keeps it as the record sealed under the
    // whenUnlocked domain key, and the session makes its token cache key for the copies it seals.
    try Credential.use(vault)
    let response = try JSONSerialization.data(withJSONObject: [
        "access_token": "wipe-check-access-token", "token_type": "Bearer", "expires_in": 3600,
    ])
    let context = Token.Context(issuer: URL(string: "https://issuer.example.com")!, clientID: "wipe-check")
    let credential = try Credential.store(
        Token(response: response, context: context), security: [.accessibility(.whenUnlocked)])
    guard credential.token.accessToken == "wipe-check-access-token" else { throw WorkerFailure("no token") }
    let locations = vault.keyBuffersForTesting
    let before = locations.map(isNonZero)
    if mode == "idle" {
        clock.advance(by: .seconds(61))
        _ = vault.keyMaterialForTesting  // applies the timeout now, as the timer would
    } else {
        vault.lock()
    }
    for (location, wasNonZero) in zip(locations, before) {
        print(
            "\(location.label): before=\(wasNonZero ? "nonzero" : "zero") after=\(isNonZero(location) ? "nonzero" : "zero")"
        )
    }
    withExtendedLifetime((vault, credential)) {}
    Credential.tokenStorage = InMemoryTokenStorage()
}

/// Re-keys the vault `rounds` times, alternating between `keyFile` and `keyFile.alt`, for the test
/// that kills a rotation midway: the vault must open with one of the two afterwards.
func rekey(vault url: URL, keyFile: URL, rounds: Int) throws {
    var keys = [keyFile, URL(fileURLWithPath: keyFile.path + ".alt")]
    let vault: Vault
    if let opened = try? Vault.open(at: url, unlock: .keyFile(keys[0])) {
        vault = opened
    } else {
        keys.reverse()
        vault = try Vault.open(at: url, unlock: .keyFile(keys[0]))
    }
    for round in 0..<rounds {
        try vault.changeUnlock(from: .keyFile(keys[0]), to: .keyFile(keys[1]))
        keys.reverse()
        emit("rekeyed \(round)")
    }
}

func unsignedJWT(_ claims: [String: Any]) -> String {
    func encode(_ object: Any) -> String {
        (try! JSONSerialization.data(withJSONObject: object)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
    return "\(encode(["alg": "none"])).\(encode(claims)).sig"
}

/// The vault a worker's argument names: a vault file, or the vault in PostgreSQL when the path
/// ends in `.pgconn`, the file then holding its libpq connection string (kept off the command line,
/// where other users could read its password).
func openVault(_ url: URL, keyFile: URL) throws -> Vault {
    let configuration = Vault.Configuration(busyTimeout: .seconds(60))
    guard url.pathExtension == "pgconn" else {
        return try Vault.open(at: url, unlock: .keyFile(keyFile), configuration: configuration)
    }
    let connection = try String(contentsOf: url, encoding: .utf8)
    return try Vault.open(postgres: connection, unlock: .keyFile(keyFile), configuration: configuration)
}

/// Runs one command. Everything lives in this function's frame, so it is all released before the
/// process exits (under LeakSanitizer, values left in top-level async code are reported as leaks).
func run(_ command: String, vault url: URL, keyFile: URL, name: String, count: Int) async throws {
    switch command {
    case "write-fixture":
        try writeFixture(vault: url, keyFile: keyFile)
        return
    case "fill-disk":
        try DiskFiller.run(vault: url, keyFile: keyFile, filler: URL(fileURLWithPath: name), valueSize: count)
        return
    case "wipe-check":
        try wipeCheck(vault: url, keyFile: keyFile, mode: name)
        return
    case "rekey":
        try rekey(vault: url, keyFile: keyFile, rounds: count)
        return
    default:
        break
    }
    let vault = try openVault(url, keyFile: keyFile)
    switch command {
    case "increment":
        let counter = SecretKey<Int>(name)
        for _ in 0..<count {
            try vault.update(counter) { ($0 ?? 0) + 1 }
        }
    case "set-retrying":
        for index in 0..<count {
            let deadline = Date().addingTimeInterval(60)
            while true {
                do {
                    try vault.set("value \(index)", for: SecretKey<String>("\(name)/\(index)"))
                    break
                } catch VaultError.storage where Date() < deadline {
                    emit("retry \(index)")
                    usleep(50_000)
                }
            }
            emit("ack \(index)")
        }
    case "fill":
        for index in 0..<count {
            try vault.set("value-\(index)", for: SecretKey<String>("\(name)-\(index)"))
        }
    case "store-credential":
        try Credential.use(vault)
        for _ in 0..<count {
            let response = try JSONSerialization.data(withJSONObject: [
                "access_token": UUID().uuidString, "token_type": "Bearer", "expires_in": 3600,
                "refresh_token": UUID().uuidString, "id_token": unsignedJWT(["sub": name]),
            ])
            let context = Token.Context(issuer: URL(string: "https://issuer.example.com")!, clientID: "worker")
            print(try Credential.store(Token(response: response, context: context), tags: ["storedBy": "worker"]).id)
        }
    case "mixed":
        let seed =
            ProcessInfo.processInfo.environment["WORKER_SEED"].flatMap(UInt64.init) ?? .random(in: 0...UInt64.max)
        emit("seed \(seed)")
        var workload = try MixedWorkload(vault: vault, tag: name, seed: seed)
        try await workload.run(operations: count)
    case "hold-lease":
        guard try vault.acquireLease(name, owner: "worker", duration: TimeInterval(count)) else {
            throw WorkerFailure("the lease is taken")
        }
        emit("held")
        while true { sleep(60) }
    case "refresh":
        try Credential.use(vault)
        guard let credential = try Credential.with(id: name) else { throw WorkerFailure("no credential \(name)") }
        try await credential.refreshIfNeeded(graceInterval: TimeInterval(count))
        print(credential.token.accessToken)
    case "tag":
        try Credential.use(vault)
        guard let credential = try Credential.with(id: name) else { throw WorkerFailure("no credential \(name)") }
        try credential.setTags(credential.tags.merging(["note": "set by the worker"]) { $1 })
    case "force-refresh":
        Credential.refreshLeaseDuration = TimeInterval(count)
        try Credential.use(vault)
        guard let credential = try Credential.with(id: name) else { throw WorkerFailure("no credential \(name)") }
        try await credential.refresh()
        print(credential.token.accessToken)
    default:
        throw WorkerFailure("unknown command \(command)")
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 6, let count = Int(arguments[5]) else {
    print("usage: VaultTestWorker <command> <vault> <key file> <name> <count>")
    exit(2)
}
do {
    try await run(
        arguments[1], vault: URL(fileURLWithPath: arguments[2]), keyFile: URL(fileURLWithPath: arguments[3]),
        name: arguments[4], count: count)
    print("ok")
} catch {
    print("error: \(error)")
    exit(1)
}
