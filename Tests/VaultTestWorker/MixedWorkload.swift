import Foundation
import TokenVault

/// Random mixed operations on one vault, for the crash and load tests: key-value sets, reads,
/// removals, a counter every worker increments, credential stores, removals, default switches and
/// refreshes against the local authorization server.
///
/// Each operation prints `begin <op> <key> <value>` before it starts and `ack <op> <key> <value>`
/// once it returned, so a test can tell acknowledged writes from the one in flight when it killed
/// the process (`-` stands for a value not known yet). A worker only touches its own keys and
/// credentials (named after its tag), and the shared counter, so each can be checked on its own.
/// Reads check the worker's own acknowledged writes (read-your-writes); a mismatch ends the run.
struct MixedWorkload {
    static let sharedCounter = SecretKey<Int>("shared-counter")
    static let keysPerWorker = 8
    /// Stores stop at this many credentials per worker (they turn into removals), so runs that go on
    /// for thousands of operations keep a vault of the same size.
    static let maximumStored = 12

    let vault: Vault
    let tag: String
    var random: SplitMix64
    /// This worker's items as it last wrote them (read back from the vault at start).
    var values: [String: String] = [:]
    /// This worker's credentials other than the server one: they are stored and removed.
    var stored: [String] = []
    /// The credential whose token came from the local server (tags `owner`=tag, `kind`=`server`).
    var serverCredential: String?

    init(vault: Vault, tag: String, seed: UInt64) throws {
        self.vault = vault
        self.tag = tag
        random = SplitMix64(seed: seed)
        try Credential.use(vault)
        for index in 0..<Self.keysPerWorker {
            let name = key(index)
            values[name] = try vault.get(SecretKey<String>(name))
        }
        for credential in try Credential.find(where: { [tag] in $0.tags["owner"] == tag }) {
            if credential.tags["kind"] == "server" {
                serverCredential = credential.id
            } else {
                stored.append(credential.id)
            }
        }
        stored.sort()
    }

    func key(_ index: Int) -> String { "\(tag)/k\(index)" }

    /// Runs `operations` random operations, then prints how many had nothing to act on (`skipped N`).
    mutating func run(operations: Int) async throws {
        var skipped = 0
        for _ in 0..<operations where try await !step() {
            skipped += 1
        }
        emit("skipped \(skipped)")
    }

    /// One random operation; `false` when the one chosen had nothing to act on.
    private mutating func step() async throws -> Bool {
        let roll = Int(random.next() % 100)
        let name = key(Int(random.next() % UInt64(Self.keysPerWorker)))
        switch roll {
        case 0..<30:
            let value = "v-\(random.next())"
            emit("begin set \(name) \(value)")
            try vault.set(value, for: SecretKey<String>(name))
            values[name] = value
            emit("ack set \(name) \(value)")
        case 30..<49:
            emit("begin get \(name) -")
            let value = try vault.get(SecretKey<String>(name))
            guard value == values[name] else {
                throw WorkerFailure("read \(name) gave \(value ?? "nothing"), expected \(values[name] ?? "nothing")")
            }
            emit("ack get \(name) \(value ?? "-")")
        case 49..<55:
            emit("begin remove \(name) -")
            try vault.remove(SecretKey<String>(name))
            values[name] = nil
            emit("ack remove \(name) -")
        case 55..<70:
            emit("begin increment \(Self.sharedCounter.name) -")
            let value = try vault.update(Self.sharedCounter) { ($0 ?? 0) + 1 }
            emit("ack increment \(Self.sharedCounter.name) \(value)")
        case 70..<80 where stored.count < Self.maximumStored:
            let token = syntheticToken()
            emit("begin store \(token.id) \(token.accessToken)")
            let credential = try Credential.store(token, tags: ["owner": tag])
            stored.append(credential.id)
            emit("ack store \(credential.id) \(token.accessToken)")
        case 80..<88:
            let choices = stored + (serverCredential.map { [$0] } ?? [])
            guard !choices.isEmpty else { return false }
            let id = choices[Int(random.next() % UInt64(choices.count))]
            emit("begin default \(id) -")
            try Credential.setDefault(try Credential.with(id: id))
            emit("ack default \(id) -")
        case 70..<80, 88..<98:
            guard stored.count > 2 else { return false }
            let id = stored.remove(at: Int(random.next() % UInt64(stored.count)))
            emit("begin unstore \(id) -")
            try Credential.with(id: id)?.remove()
            emit("ack unstore \(id) -")
        default:  // 98, 99: refreshes cost a round trip to the server, so they are rarer
            guard let id = serverCredential, let credential = try Credential.with(id: id) else { return false }
            emit("begin refresh \(id) -")
            try await credential.refresh()
            emit("ack refresh \(id) \(credential.token.accessToken)")
        }
        return true
    }

    private mutating func syntheticToken() -> Token {
        let response = try! JSONSerialization.data(withJSONObject: [
            "access_token": "at-\(random.next())", "token_type": "Bearer", "expires_in": 3600,
        ])
        let context = Token.Context(issuer: URL(string: "https://issuer.example.com")!, clientID: tag)
        return try! Token(response: response, context: context)
    }
}

/// A failed self-check in a worker.
struct WorkerFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Writes one line straight to standard output (no buffering), so that a line printed before a
/// SIGKILL is never lost.
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// A small seeded generator (SplitMix64), so a failing run can be repeated from its printed seed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
