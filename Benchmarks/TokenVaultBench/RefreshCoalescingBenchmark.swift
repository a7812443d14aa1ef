import Foundation
import TokenVault

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Section 5: many concurrent `refreshIfNeeded` calls on one expired credential in an on-disk
/// vault, against ``StubTokenEndpoint``. Single flight should make one token request however
/// many callers there are; the cost of coalescing is the total time beside one caller's refresh
/// (the floor: discovery, one token request, the lease and the durable writes), and that beside
/// one bare request to the stub.
struct RefreshCoalescingBenchmark {
    /// What was measured.
    struct Result: Codable, Sendable {
        /// Concurrent callers per repetition.
        let callers: Int
        /// Token requests the stub saw, per repetition (single flight: 1 each).
        let tokenRequests: [Int]
        /// Discovery requests the stub saw, per repetition.
        let discoveryRequests: [Int]
        /// From the first call to the last return, per repetition.
        let total: LatencySummary
        /// Each caller's own wait, all repetitions together.
        let perCall: LatencySummary
        /// One caller refreshing alone: the floor.
        let singleRefresh: LatencySummary
        /// Token requests the stub saw over all lone refreshes.
        let singleRefreshTokenRequests: Int
        /// One `URLSession.shared` POST to the stub's token endpoint.
        let endpointRoundTrip: LatencySummary

        /// Total p50 over one refresh's p50.
        var ratio: Double { singleRefresh.p50Ns > 0 ? total.p50Ns / singleRefresh.p50Ns : 0 }
    }

    /// Concurrent callers.
    let callers: Int
    /// Coalesced repetitions, each on a new expired credential.
    let repetitions: Int
    /// Lone refreshes measured for the floor.
    let singleRefreshes: Int
    /// Where the vault goes.
    let directory: URL

    /// Runs the floor and the coalesced refreshes against the stub (registered by ``BenchmarkRun``).
    func run(progress: (String) -> Void) async throws -> Result {
        let keyFile = directory.appendingPathComponent("refresh.key")
        try KeyFile.generate(at: keyFile)
        let vault = try Vault.create(at: directory.appendingPathComponent("refresh.vault"), unlock: .keyFile(keyFile))
        try Credential.use(vault)
        defer { Credential.tokenStorage = InMemoryTokenStorage() }
        var index = 0
        func expiredCredential() throws -> Credential {
            index += 1
            return try Credential.store(TokenFixtures.token(index, expiresIn: 0), tags: TokenFixtures.tags(index))
        }

        progress("refresh: warm-up and floors")
        try await expiredCredential().refreshIfNeeded()  // warms URLSession and the vault
        var roundTrip = LatencySamples()
        var request = URLRequest(url: StubTokenEndpoint.tokenEndpoint(of: TokenFixtures.issuer))
        request.httpMethod = "POST"
        for _ in 0..<max(singleRefreshes, 10) {
            let start = Stopwatch.now()
            _ = try await URLSession.shared.data(for: request)
            roundTrip.append(Stopwatch.now() &- start)
        }
        var single = LatencySamples()
        StubTokenEndpoint.resetCounts()
        for _ in 0..<singleRefreshes {
            let credential = try expiredCredential()
            let start = Stopwatch.now()
            try await credential.refreshIfNeeded()
            single.append(Stopwatch.now() &- start)
        }
        let singleRefreshTokenRequests = StubTokenEndpoint.tokenRequests

        var tokenRequests: [Int] = []
        var discoveryRequests: [Int] = []
        var total = LatencySamples()
        var perCall = LatencySamples(reservingCapacity: callers * repetitions)
        for repetition in 0..<repetitions {
            progress("refresh: \(callers) concurrent callers, repetition \(repetition + 1)/\(repetitions)")
            let credential = try expiredCredential()
            StubTokenEndpoint.resetCounts()
            let start = Stopwatch.now()
            let waits = try await withThrowingTaskGroup(of: UInt64.self) { group in
                for _ in 0..<callers {
                    group.addTask {
                        let called = Stopwatch.now()
                        try await credential.refreshIfNeeded()
                        return Stopwatch.now() &- called
                    }
                }
                return try await group.reduce(into: [UInt64]()) { $0.append($1) }
            }
            total.append(Stopwatch.now() &- start)
            for wait in waits { perCall.append(wait) }
            tokenRequests.append(StubTokenEndpoint.tokenRequests)
            discoveryRequests.append(StubTokenEndpoint.discoveryRequests)
            guard credential.token.expiresAt > Date() else { fatalError("the credential was not refreshed") }
        }
        return Result(
            callers: callers, tokenRequests: tokenRequests, discoveryRequests: discoveryRequests, total: total.summary,
            perCall: perCall.summary, singleRefresh: single.summary,
            singleRefreshTokenRequests: singleRefreshTokenRequests, endpointRoundTrip: roundTrip.summary)
    }

    /// The table.
    static func table(_ result: Result) -> TextTable {
        var table = TextTable(["refresh", "n", "p50", "p99", "token requests"])
        table.add([
            "one bare POST to the stub token endpoint", "\(result.endpointRoundTrip.count)",
            Format.duration(nanoseconds: result.endpointRoundTrip.p50Ns),
            Format.duration(nanoseconds: result.endpointRoundTrip.p99Ns), "",
        ])
        table.add([
            "one caller: refreshIfNeeded (discovery, lease, request, durable writes)", "\(result.singleRefresh.count)",
            Format.duration(nanoseconds: result.singleRefresh.p50Ns),
            Format.duration(nanoseconds: result.singleRefresh.p99Ns),
            "\(result.singleRefreshTokenRequests) in \(result.singleRefresh.count)",
        ])
        let requests = Set(result.tokenRequests).sorted().map(String.init).joined(separator: ", ")
        let discovery = Set(result.discoveryRequests).sorted().map(String.init).joined(separator: ", ")
        table.add([
            "\(Format.count(Double(result.callers))) concurrent callers: total", "\(result.total.count)",
            Format.duration(nanoseconds: result.total.p50Ns), Format.duration(nanoseconds: result.total.p99Ns),
            "\(requests) per repetition (+ \(discovery) discovery)",
        ])
        table.add([
            "  each caller's wait", "\(result.perCall.count)", Format.duration(nanoseconds: result.perCall.p50Ns),
            Format.duration(nanoseconds: result.perCall.p99Ns), "",
        ])
        table.add(["  total / one caller (p50)", "", Format.ratio(result.ratio), "", ""])
        return table
    }
}
