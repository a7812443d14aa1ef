import Dispatch
import Foundation
import Locking

extension Array where Element: Sendable {
    /// `transform` over every element, the array cut into one slice per core, the results in order:
    /// for CPU-bound work on every record of a vault (decoding, encoding and sealing), which is
    /// independent per record. Below `minimumSlice` elements a slice is not worth a thread.
    ///
    /// - Parameters:
    ///   - minimumSlice: The fewest elements a slice of its own gets.
    ///   - transform: The work on one element.
    /// - Returns: The results, in the elements' order.
    /// - Throws: The first error a slice threw.
    func concurrentMap<Result: Sendable>(
        minimumSlice: Int = 256, _ transform: @Sendable (Element) throws -> Result
    ) throws -> [Result] {
        let slices = Swift.max(1, Swift.min(ProcessInfo.processInfo.activeProcessorCount, count / minimumSlice))
        guard slices > 1 else { return try map(transform) }
        let done = Locked<[Int: Swift.Result<[Result], any Error>]>([:])
        DispatchQueue.concurrentPerform(iterations: slices) { slice in
            let bounds = (count * slice / slices)..<(count * (slice + 1) / slices)
            let result = Swift.Result { try self[bounds].map(transform) }
            done.withLock { $0[slice] = result }
        }
        let results = done.withLock { $0 }
        return try (0..<slices).flatMap { try results[$0]!.get() }
    }
}
