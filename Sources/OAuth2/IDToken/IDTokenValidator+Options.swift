import Foundation

extension IDTokenValidator {
    /// How ID tokens are checked: the clock leeway, the clock, the algorithms accepted and where
    /// issuers' keys are cached. Sendable.
    public struct Options: Sendable {
        /// How far `exp` may be past and `iat` ahead of the clock, in seconds (clock skew between
        /// the issuer and this machine); 60 by default. Negative values count as 0.
        public var leeway: TimeInterval
        /// The algorithms accepted: all of ``JWSAlgorithm`` by default. Narrow it to what the
        /// issuer uses (its `id_token_signing_alg_values_supported`).
        public var allowedAlgorithms: Set<JWSAlgorithm>
        /// Where the issuers' keys are kept between validations; ``JWKSCache/shared`` by default.
        public var keyCache: JWKSCache
        /// The current time; `Date()` by default. Tests pass a fixed clock instead of sleeping.
        public var clock: @Sendable () -> Date

        /// Options.
        ///
        /// - Parameters:
        ///   - leeway: The clock leeway in seconds; 60 by default.
        ///   - allowedAlgorithms: The algorithms accepted; all supported ones by default.
        ///   - keyCache: Where keys are cached; the process-wide cache by default.
        ///   - clock: The current time.
        public init(
            leeway: TimeInterval = 60, allowedAlgorithms: Set<JWSAlgorithm> = Set(JWSAlgorithm.allCases),
            keyCache: JWKSCache = .shared, clock: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.leeway = leeway
            self.allowedAlgorithms = allowedAlgorithms
            self.keyCache = keyCache
            self.clock = clock
        }
    }
}
