import Foundation

/// A fresh directory under the system temporary folder, removed when released.
public final class TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates the directory.
    public init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("tokenvault-tests-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside the directory.
    ///
    /// - Parameter name: The file name.
    /// - Returns: The URL (nothing is created).
    public func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
