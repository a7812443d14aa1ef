import Testing

/// Runs a whole suite alone among the suites that share `Credential`'s process-wide state (its
/// token storage, default and instances): test targets run in one process, in parallel, so
/// `.serialized` within one suite does not keep a suite of another target out.
public struct CredentialStateExclusion: SuiteTrait, TestScoping {
    /// A suite with this trait runs while no other such suite does.
    public static var exclusive: Self { Self() }

    public var isRecursive: Bool { false }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        await Turns.shared.take()
        do {
            try await function()
        } catch {
            await Turns.shared.give()
            throw error
        }
        await Turns.shared.give()
    }

    /// One turn at a time, handed to the waiters in order.
    private actor Turns {
        static let shared = Turns()
        private var taken = false
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func take() async {
            guard taken else {
                taken = true
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        func give() {
            if waiting.isEmpty {
                taken = false
            } else {
                waiting.removeFirst().resume()
            }
        }
    }
}

extension Trait where Self == CredentialStateExclusion {
    /// Runs the suite alone among the suites that use `Credential`'s process-wide state.
    public static var credentialState: Self { .exclusive }
}
