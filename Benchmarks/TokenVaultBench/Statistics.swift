/// A set of latency samples in nanoseconds, summarised by percentiles (nearest rank).
struct LatencySamples: Sendable {
    /// The samples, in the order they were taken.
    private(set) var nanoseconds: [UInt64] = []

    /// An empty set, with room for `capacity` samples.
    init(reservingCapacity capacity: Int = 0) {
        nanoseconds.reserveCapacity(capacity)
    }

    /// Adds one sample.
    mutating func append(_ sample: UInt64) {
        nanoseconds.append(sample)
    }

    /// Adds every sample of `other`.
    mutating func append(contentsOf other: LatencySamples) {
        nanoseconds.append(contentsOf: other.nanoseconds)
    }

    /// The number of samples.
    var count: Int { nanoseconds.count }

    /// Count, mean, p50, p99, min and max (sorting once).
    var summary: LatencySummary { LatencySummary(nanoseconds) }
}

/// What the report keeps of a set of latency samples. All times in nanoseconds.
struct LatencySummary: Codable, Sendable {
    /// How many samples.
    let count: Int
    /// Their mean.
    let meanNs: Double
    /// The median (nearest rank).
    let p50Ns: Double
    /// The 99th percentile (nearest rank; equal to the maximum below 100 samples).
    let p99Ns: Double
    /// The fastest sample.
    let minNs: Double
    /// The slowest sample.
    let maxNs: Double

    init(_ samples: [UInt64]) {
        let sorted = samples.sorted()
        count = sorted.count
        guard !sorted.isEmpty else {
            (meanNs, p50Ns, p99Ns, minNs, maxNs) = (0, 0, 0, 0, 0)
            return
        }
        meanNs = sorted.reduce(0.0) { $0 + Double($1) } / Double(sorted.count)
        p50Ns = Double(Self.percentile(0.50, of: sorted))
        p99Ns = Double(Self.percentile(0.99, of: sorted))
        minNs = Double(sorted.first!)
        maxNs = Double(sorted.last!)
    }

    /// Operations per second at the mean latency: the throughput of back-to-back calls.
    var operationsPerSecond: Double { meanNs > 0 ? 1e9 / meanNs : 0 }

    /// The nearest-rank percentile `p` (0...1) of sorted samples.
    static func percentile<T>(_ p: Double, of sorted: [T]) -> T {
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}

/// The median of `values` (the mean of the two middle ones for an even count); 0 when empty.
func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// A ratio measured once per round: its median and its spread across rounds.
struct RatioSummary: Codable, Sendable {
    /// The median over rounds.
    let median: Double
    /// The lowest round.
    let min: Double
    /// The highest round.
    let max: Double

    init(_ perRound: [Double]) {
        median = TokenVaultBench.median(perRound)
        min = perRound.min() ?? 0
        max = perRound.max() ?? 0
    }
}
