import Foundation

/// Opens a URL in the user's browser with `xdg-open`, when there is one on `PATH`.
enum BrowserOpener {
    /// Starts `xdg-open URL` without waiting for the browser, its output discarded.
    ///
    /// - Returns: Whether an opener was started; the caller prints the URL either way.
    @discardableResult
    static func open(_ url: URL, environment: [String: String]) -> Bool {
        let directories = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        guard
            let opener = directories.map({ URL(fileURLWithPath: String($0)).appendingPathComponent("xdg-open") })
                .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) })
        else { return false }
        let process = Process()
        process.executableURL = opener
        process.arguments = [url.absoluteString]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        return (try? process.run()) != nil
    }
}
