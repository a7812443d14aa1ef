import Foundation

/// Files committed under `Resources/Fixtures`, written by older versions of the library.
public enum Fixtures {
    /// Copies a fixture into `directory` (tests never touch the committed file) with mode 0600.
    ///
    /// - Parameters:
    ///   - name: The file name.
    ///   - directory: Where to copy it.
    /// - Returns: The copy.
    public static func copy(_ name: String, to directory: TemporaryDirectory) throws -> URL {
        guard let source = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Resources/Fixtures")
        else { throw CocoaError(.fileNoSuchFile) }
        let destination = directory.file(name)
        try FileManager.default.copyItem(at: source, to: destination)
        try setFileMode(0o600, destination)  // git checks files out 0644, which the vault refuses
        return destination
    }
}
