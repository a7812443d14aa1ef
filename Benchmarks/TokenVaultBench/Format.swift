import Foundation

/// How numbers are written in the tables.
enum Format {
    /// A count with thousands separators: `1,234,567`.
    static func count(_ value: Double) -> String {
        let whole = Int(value.rounded())
        let digits = String(abs(whole))
        var grouped = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0 && (digits.count - offset) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return (whole < 0 ? "-" : "") + grouped
    }

    /// A duration given in nanoseconds, in the unit that suits it: `850 ns`, `12.3 µs`, `4.56 ms`, `1.23 s`.
    static func duration(nanoseconds value: Double) -> String {
        switch value {
        case ..<1_000: String(format: "%.0f ns", value)
        case ..<100_000: String(format: "%.2f µs", value / 1e3)
        case ..<1_000_000: String(format: "%.1f µs", value / 1e3)
        case ..<100_000_000: String(format: "%.2f ms", value / 1e6)
        case ..<1_000_000_000: String(format: "%.0f ms", value / 1e6)
        default: String(format: "%.2f s", value / 1e9)
        }
    }

    /// `p50 / p99` of a summary.
    static func percentiles(_ summary: LatencySummary) -> String {
        "\(duration(nanoseconds: summary.p50Ns)) / \(duration(nanoseconds: summary.p99Ns))"
    }

    /// A ratio: `1.03x`.
    static func ratio(_ value: Double) -> String {
        String(format: "%.2fx", value)
    }

    /// A ratio with its spread over rounds: `1.03x (0.99–1.08)`.
    static func ratio(_ summary: RatioSummary) -> String {
        String(format: "%.2fx (%.2f–%.2f)", summary.median, summary.min, summary.max)
    }

    /// Megabytes (10^6 bytes) per second.
    static func megabytesPerSecond(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f", value) : String(format: "%.1f", value)
    }

    /// A byte count in B, KiB or MiB.
    static func bytes(_ value: Double) -> String {
        switch value {
        case ..<1024: String(format: "%.0f B", value)
        case ..<(1024 * 1024): String(format: "%.1f KiB", value / 1024)
        default: String(format: "%.1f MiB", value / 1_048_576)
        }
    }

    /// A payload size in whole binary units where it has them: `64 B`, `4 KiB`, `1 MiB`.
    static func payload(_ size: Int) -> String {
        if size >= 1 << 20 && size % (1 << 20) == 0 { return "\(size >> 20) MiB" }
        if size >= 1024 && size % 1024 == 0 { return "\(size >> 10) KiB" }
        return "\(size) B"
    }
}
