internal import CSodium

/// Compares two byte strings in time that depends only on their length. Wraps `sodium_memcmp`.
///
/// - Parameters:
///   - lhs: The first bytes.
///   - rhs: The second bytes.
/// - Returns: `true` when both have the same length and the same bytes.
public func safeCompare(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    guard !lhs.isEmpty else { return true }
    SodiumRuntime.ensureInitialized()
    return lhs.withUnsafeBytes { l in
        rhs.withUnsafeBytes { r in sodium_memcmp(l.baseAddress!, r.baseAddress!, l.count) == 0 }
    }
}
