/// One fuzz target: a decoder run on arbitrary bytes, with the properties its results must have.
///
/// Rejecting an input by throwing is always fine. A crash, a trap, a hang, a sanitizer report, or
/// a property that ``require(_:_:file:line:)`` finds false is a bug.
package protocol FuzzTarget {
    /// Runs one input.
    ///
    /// - Parameter input: The bytes libFuzzer generated, or one file of a corpus.
    static func run(_ input: [UInt8])
}

/// Stops the process when a property of a decoded value does not hold, so that libFuzzer records
/// the input as a crash. Kept in release builds, unlike `assert`.
///
/// - Parameters:
///   - condition: The property.
///   - message: What failed; never a decoded secret.
///   - file: The caller's file.
///   - line: The caller's line.
func require(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID,
    line: UInt = #line
) {
    if !condition() { fatalError("fuzz property failed: \(message())", file: file, line: line) }
}
