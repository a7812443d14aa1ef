internal import CSodium

/// Initialises libsodium exactly once per process before any other call into it.
enum SodiumRuntime {
    private static let initialized: Bool = sodium_init() >= 0

    /// Makes sure `sodium_init` has run; traps if libsodium cannot start, since nothing is safe then.
    static func ensureInitialized() {
        precondition(initialized, "libsodium failed to initialise (sodium_init)")
    }
}
