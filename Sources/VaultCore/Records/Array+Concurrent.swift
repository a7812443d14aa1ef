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
        try bySlices(minimumSlice: minimumSlice) { try self[$0].map(transform) }
    }

    /// The elements `isIncluded` keeps, in order, the array cut into one slice per core as
    /// ``concurrentMap(minimumSlice:_:)`` does: for a filter over every cached record, which reads
    /// memory the caches no longer hold, so the cores wait for it side by side. `isIncluded` may
    /// run on several threads at once, in no particular order. Inlinable, so that the filter over
    /// each slice is compiled for the caller's element type: unspecialised, on two cores, it cost
    /// as much as the second core saved.
    ///
    /// - Parameters:
    ///   - minimumSlice: The fewest elements a slice of its own gets.
    ///   - isIncluded: The test of one element.
    /// - Returns: The elements kept, in the array's order.
    @inlinable
    package func concurrentFilter(minimumSlice: Int, _ isIncluded: @Sendable (Element) -> Bool) -> [Element] {
        bySlices(minimumSlice: minimumSlice) { self[$0].filter(isIncluded) }
    }

    /// The results of `body` over one slice of the indices per core (one slice in all when the array
    /// is too short for two of `minimumSlice`), joined in the slices' order.
    @usableFromInline
    func bySlices<Result: Sendable, Failure: Error>(
        minimumSlice: Int, _ body: @Sendable (Range<Int>) throws(Failure) -> [Result]
    ) throws(Failure) -> [Result] {
        let slices = Swift.max(1, Swift.min(ProcessInfo.processInfo.activeProcessorCount, count / minimumSlice))
        guard slices > 1 else { return try body(indices) }
        let done = Locked<[Int: Swift.Result<[Result], Failure>]>([:])
        DispatchQueue.concurrentPerform(iterations: slices) { slice in
            let bounds = (count * slice / slices)..<(count * (slice + 1) / slices)
            let result = Swift.Result { () throws(Failure) -> [Result] in try body(bounds) }
            done.withLock { $0[slice] = result }
        }
        let results = done.withLock { $0 }
        var joined: [Result] = []
        for slice in 0..<slices { joined += try results[slice]!.get() }
        return joined
    }
}
