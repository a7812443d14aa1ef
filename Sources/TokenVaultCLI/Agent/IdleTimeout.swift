/// An `--idle` value: a number with `s`, `m` or `h` (`90s`, `15m`, `1h`), seconds without one.
enum IdleTimeout {
    static let standard = Duration.seconds(15 * 60)

    /// - Throws: ``UsageError`` for anything else, or zero.
    static func parse(_ text: String) throws -> Duration {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600]
        let unit = text.last.flatMap { units[$0] }
        guard let number = Int(unit == nil ? text : String(text.dropLast())), number > 0 else {
            throw UsageError("--idle needs a duration such as 90s, 15m or 1h")
        }
        return .seconds(number * (unit ?? 1))
    }
}
