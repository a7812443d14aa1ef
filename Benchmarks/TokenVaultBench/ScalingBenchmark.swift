import Foundation
import TokenVault
import VaultCrypto

/// Section 2: seal and open on 1…N threads at once (N = the cores this process may use), library
/// and raw libsodium, each thread with its own buffers and all sharing one key, as a server's
/// request threads would. The ratio that matters is the speed-up: N threads against one.
struct ScalingBenchmark {
    /// One workload's rates by thread count.
    struct Result: Codable, Sendable {
        /// What ran: `library seal`, `raw open`, ...
        let workload: String
        /// The payload size.
        let payloadBytes: Int
        /// Operations per second (all threads together, median of the repetitions), index 0 for 1 thread.
        let operationsPerSecond: [Double]

        /// The rate at the most threads over the rate at one.
        var speedUp: Double {
            guard let first = operationsPerSecond.first, first > 0, let last = operationsPerSecond.last else {
                return 0
            }
            return last / first
        }
    }

    /// One operation to scale: its name, and what makes a thread's operation and buffers.
    private struct Workload {
        let name: String
        let makeWorker: @Sendable () -> (() throws -> Void)
    }

    /// The payload sizes measured.
    static let payloadSizes = [1024, 65536]

    /// The most threads.
    let maximumThreads: Int
    /// How long each point runs, per repetition.
    let secondsPerPoint: Double
    /// How many repetitions per point (the median is kept).
    let repetitions: Int

    /// Measures every workload at 1…``maximumThreads`` threads.
    func run(progress: (String) -> Void) throws -> [Result] {
        RawSodiumBaseline.ensureInitialized()
        let key = SymmetricKey()
        let associatedData = SecureRandom.bytes(count: SealBenchmark.associatedDataByteCount)
        var results: [Result] = []
        for size in Self.payloadSizes {
            let payload = SecureRandom.bytes(count: size)
            let sealed = try XChaCha20Poly1305.seal(payload, using: key, authenticating: associatedData).combined
            let workloads = [
                Workload(name: "library seal") {
                    { blackHole(try XChaCha20Poly1305.seal(payload, using: key, authenticating: associatedData)) }
                },
                Workload(name: "raw seal") {
                    let message = RawBuffer(copying: payload)
                    let ad = RawBuffer(copying: associatedData)
                    let nonce = RawBuffer(count: XChaCha20Poly1305.nonceByteCount)
                    let output = RawBuffer(count: payload.count + XChaCha20Poly1305.tagByteCount)
                    return {
                        RawSodiumBaseline.randomBytes(into: nonce.bytes)
                        key.withUnsafeBytes { k in
                            RawSodiumBaseline.seal(
                                message.readOnly, key: k, nonce: nonce.readOnly, associatedData: ad.readOnly,
                                into: output.bytes)
                        }
                    }
                },
                Workload(name: "library open") {
                    {
                        blackHole(
                            try XChaCha20Poly1305.open(
                                XChaCha20Poly1305.SealedBox(combined: sealed), using: key,
                                authenticating: associatedData))
                    }
                },
                Workload(name: "raw open") {
                    let nonce = RawBuffer(copying: sealed.prefix(XChaCha20Poly1305.nonceByteCount))
                    let ciphertext = RawBuffer(copying: sealed.dropFirst(XChaCha20Poly1305.nonceByteCount))
                    let ad = RawBuffer(copying: associatedData)
                    let output = RawBuffer(count: payload.count)
                    return {
                        let authentic = key.withUnsafeBytes { k in
                            RawSodiumBaseline.open(
                                ciphertext.readOnly, key: k, nonce: nonce.readOnly, associatedData: ad.readOnly,
                                into: output.bytes)
                        }
                        guard authentic else { fatalError("the raw open did not authenticate its own box") }
                    }
                },
            ]
            for workload in workloads {
                progress("scaling: \(workload.name) \(Format.payload(size))")
                // Thread counts alternate within each repetition, so drift hits them alike.
                var samples = Array(repeating: [Double](), count: maximumThreads)
                for _ in 0..<repetitions {
                    for threads in 1...maximumThreads {
                        samples[threads - 1].append(
                            ThreadTeam.rate(threads: threads, seconds: secondsPerPoint, makeWorker: workload.makeWorker)
                        )
                    }
                }
                let rates = samples.map(median)
                results.append(Result(workload: workload.name, payloadBytes: size, operationsPerSecond: rates))
            }
        }
        return results
    }

    /// The table: one row per workload, one column per thread count.
    static func table(_ results: [Result]) -> TextTable {
        let threads = results.first?.operationsPerSecond.count ?? 1
        var table = TextTable(
            ["workload"] + (1...threads).map { "\($0) thread\($0 == 1 ? "" : "s") op/s" }
                + ["speed-up at \(threads)", "efficiency"])
        for result in results {
            table.add(
                ["\(result.workload) \(Format.payload(result.payloadBytes))"]
                    + result.operationsPerSecond.map(Format.count)
                    + [Format.ratio(result.speedUp), String(format: "%.0f%%", 100 * result.speedUp / Double(threads))])
        }
        return table
    }
}
