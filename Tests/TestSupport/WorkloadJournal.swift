import Foundation

/// One line a `VaultTestWorker mixed` run prints: `begin|ack|failed <operation> <key> <value>`.
public struct WorkloadEvent: Sendable {
    /// Where the operation was when the line was printed.
    public enum Phase: String, Sendable {
        /// About to start: it may or may not land if the process dies now.
        case begin
        /// Returned: it must be in the vault from now on.
        case ack
        /// Threw: it must not be in the vault.
        case failed
    }

    /// Where the operation was.
    public let phase: Phase
    /// `set`, `get`, `remove`, `increment`, `store`, `unstore`, `default` or `refresh`.
    public let operation: String
    /// The item name or credential id.
    public let key: String
    /// The value written, or `-`.
    public let value: String

    /// Parses a line; `nil` for lines that are not events.
    ///
    /// - Parameter line: One line of a worker's output.
    public init?(line: Substring) {
        let fields = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count == 4, let phase = Phase(rawValue: String(fields[0])) else { return nil }
        self.phase = phase
        operation = String(fields[1])
        key = String(fields[2])
        value = String(fields[3])
    }

    /// Whether the operation changes the vault.
    var isWrite: Bool { operation != "get" }
}

/// What mixed-workload workers acknowledged, on top of a state read from the vault: the state the
/// vault must hold, give or take the operation each worker had in flight when it stopped.
public struct WorkloadJournal: Sendable {
    /// The state with every acknowledged write applied.
    public private(set) var expected: WorkloadState
    /// How many writes were acknowledged.
    public private(set) var acknowledgedWrites = 0
    /// How many operations (reads included) were acknowledged.
    public private(set) var acknowledgedOperations = 0
    private var inFlight: [String: WorkloadEvent] = [:]

    /// A journal starting from `baseline`.
    ///
    /// - Parameter baseline: The vault's state before the workers started.
    public init(baseline: WorkloadState) {
        expected = baseline
    }

    /// Adds one worker's output, in the order it printed it.
    ///
    /// - Parameters:
    ///   - output: Everything the worker printed.
    ///   - worker: A name for the worker (its in-flight operation is tracked separately).
    public mutating func record(_ output: String, worker: String) {
        for line in output.split(separator: "\n") {
            guard let event = WorkloadEvent(line: line) else { continue }
            switch event.phase {
            case .begin:
                inFlight[worker] = event
            case .ack:
                inFlight[worker] = nil
                acknowledgedOperations += 1
                guard event.isWrite else { continue }
                acknowledgedWrites += 1
                expected.apply(event)
            case .failed:
                inFlight[worker] = nil
            }
        }
    }

    /// Checks `actual` against the acknowledged writes: each operation still in flight may have
    /// landed or not.
    ///
    /// - Parameters:
    ///   - actual: The state read from the vault.
    ///   - exactDefault: Whether the default credential is predictable (one writer).
    /// - Returns: `nil` when it matches; otherwise what was expected and what was found.
    public func mismatch(in actual: WorkloadState, exactDefault: Bool) -> String? {
        let pending = inFlight.values.filter(\.isWrite)
        // Every subset of the in-flight writes (one per worker at most, so few).
        for mask in 0..<(1 << pending.count) {
            var candidate = expected
            for (index, event) in pending.enumerated() where mask & (1 << index) != 0 {
                candidate.apply(event)
            }
            if candidate.admits(actual, exactDefault: exactDefault) { return nil }
        }
        let flying = pending.map { "\($0.operation) \($0.key)" }
        return "expected \(expected)\n(in flight: \(flying))\nfound \(actual)"
    }
}
