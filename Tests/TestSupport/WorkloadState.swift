import Foundation
import TokenVault

/// A vault's contents as the mixed-workload tests compare them: key-value items, the shared
/// counter, every credential's access token and the default credential.
public struct WorkloadState: Equatable, Sendable, CustomStringConvertible {
    /// The name of the counter every worker increments (an `Int` item).
    public static let counterName = "shared-counter"

    /// String items by name (the counter apart).
    public var values: [String: String] = [:]
    /// The shared counter.
    public var counter = 0
    /// Access token by credential id; `nil` when not known (a refresh was in flight).
    public var tokens: [String: String?] = [:]
    /// The default credential's id.
    public var defaultID: String?

    /// An empty state.
    public init() {}

    /// Reads everything from `vault`.
    ///
    /// - Parameter vault: An unlocked vault.
    /// - Returns: Its state.
    /// - Throws: What the vault throws.
    public static func read(_ vault: Vault) throws -> WorkloadState {
        var state = WorkloadState()
        for name in try vault.itemNames() {
            if name == counterName {
                state.counter = try vault.get(SecretKey<Int>(name)) ?? 0
            } else {
                state.values[name] = try vault.get(SecretKey<String>(name))
            }
        }
        let storage = try VaultTokenStorage(vault: vault)
        for id in try storage.allIDs() {
            state.tokens[id] = try storage.token(id: id, prompt: nil, authenticationContext: nil)?.accessToken
        }
        state.defaultID = try storage.defaultTokenID()
        return state
    }

    /// Applies one acknowledged (or possibly landed) operation.
    mutating func apply(_ event: WorkloadEvent) {
        switch event.operation {
        case "set": values[event.key] = event.value
        case "remove": values[event.key] = nil
        case "increment": counter += 1
        case "store":
            tokens[event.key] = .some(event.value)
            if defaultID == nil { defaultID = event.key }
        case "default": defaultID = event.key
        case "unstore":
            tokens[event.key] = nil
            if defaultID == event.key { defaultID = nil }
        case "refresh": tokens[event.key] = .some(event.phase == .ack ? event.value : nil)
        default: break
        }
    }

    /// Whether `actual` is this state: tokens not known here match any value; with `exactDefault`
    /// false, any existing credential (or none) may be the default (concurrent writers race on it).
    func admits(_ actual: WorkloadState, exactDefault: Bool) -> Bool {
        guard values == actual.values, counter == actual.counter, Set(tokens.keys) == Set(actual.tokens.keys)
        else { return false }
        for (id, token) in tokens where token != nil && actual.tokens[id] != token { return false }
        if exactDefault { return defaultID == actual.defaultID }
        return actual.defaultID.map { actual.tokens[$0] != nil } ?? true
    }

    public var description: String {
        let tokenList = tokens.keys.sorted().map { "\($0)=\(tokens[$0]!.map { "\($0.prefix(12))…" } ?? "?")" }
        return
            "\(values.count) items \(values.sorted { $0.key < $1.key }), counter \(counter), "
            + "credentials \(tokenList), default \(defaultID ?? "none")"
    }
}
