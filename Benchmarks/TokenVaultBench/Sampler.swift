/// One way of doing an operation, timed beside the others of its comparison.
struct Variant {
    /// Its name in the report.
    let name: String
    /// One operation.
    let body: () throws -> Void
}

/// What a ``Sampler`` measured for one variant: the samples of each round, and all of them.
struct VariantSamples {
    /// The variant's name.
    let name: String
    /// The samples, one set per round.
    let rounds: [LatencySamples]

    /// Every round's samples together.
    var all: LatencySamples {
        rounds.reduce(into: LatencySamples()) { $0.append(contentsOf: $1) }
    }

    /// The median latency of each round.
    var roundMedians: [Double] { rounds.map { $0.summary.p50Ns } }

    /// Operations per second: each round's operations over its time, median over rounds, so one
    /// round hit by another process does not decide the number.
    var operationsPerSecond: Double {
        median(rounds.map { $0.summary.operationsPerSecond })
    }

    /// What the report keeps, with throughput in bytes of `payloadBytes` per operation.
    func summary(payloadBytes: Int) -> VariantSummary {
        let rate = operationsPerSecond
        return VariantSummary(
            latency: all.summary, operationsPerSecond: rate, megabytesPerSecond: rate * Double(payloadBytes) / 1e6)
    }
}

/// What the report keeps of one variant: its latencies and its throughput.
struct VariantSummary: Codable, Sendable {
    /// Every sample of every round.
    let latency: LatencySummary
    /// Median over rounds of each round's operations per second.
    let operationsPerSecond: Double
    /// The same in MB/s (10^6 bytes of payload per second).
    let megabytesPerSecond: Double
}

/// Times variants of one operation in interleaved rounds: in every round each variant runs for
/// the same time, in a rotated order, so drift on a noisy machine (frequency changes, other
/// processes) hits them all alike and a ratio taken round by round stays meaningful.
struct Sampler {
    /// How many rounds.
    let rounds: Int
    /// How long each variant runs per round, in seconds.
    let secondsPerRound: Double
    /// How long each variant runs untimed before the first round, in seconds.
    let warmUpSeconds: Double
    /// A cap on the samples per variant and round (memory for very fast operations).
    var maximumSamplesPerRound = 200_000
    /// A floor on the samples per variant and round, reached even past the time budget.
    var minimumSamplesPerRound = 3

    /// Runs every variant `rounds` times; each operation is one sample.
    ///
    /// - Returns: The samples, in the order of `variants`.
    func run(_ variants: [Variant]) throws -> [VariantSamples] {
        for variant in variants {
            let start = Stopwatch.now()
            repeat { try variant.body() } while Stopwatch.seconds(since: start) < warmUpSeconds
        }
        var collected = Array(repeating: [LatencySamples](), count: variants.count)
        let budget = UInt64(secondsPerRound * 1e9)
        for round in 0..<rounds {
            for step in 0..<variants.count {
                let index = (step + round) % variants.count
                let body = variants[index].body
                var samples = LatencySamples(reservingCapacity: 1024)
                let start = Stopwatch.now()
                var now = start
                repeat {
                    let before = Stopwatch.now()
                    try body()
                    now = Stopwatch.now()
                    samples.append(now &- before)
                } while (now &- start < budget || samples.count < minimumSamplesPerRound)
                    && samples.count < maximumSamplesPerRound
                collected[index].append(samples)
            }
        }
        return zip(variants, collected).map { VariantSamples(name: $0.name, rounds: $1) }
    }
}
