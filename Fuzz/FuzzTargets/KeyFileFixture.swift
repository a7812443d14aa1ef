import Foundation

/// The key file of the committed fixture vault `Tests/TestSupport/Resources/Fixtures/format-v1.vault`
/// (a test key, public in this repository), copied once per process to a private temporary
/// folder that is removed at exit.
enum KeyFileFixture {
    /// The committed key file itself (its mode in a checkout is git's 0644, hence the private copy).
    static let committed = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Tests/TestSupport/Resources/Fixtures/format-v1.key").standardizedFileURL

    /// A folder only this process uses, mode 0700.
    static let folder: URL = {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("tokenvault-fuzz-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)
        try? FileManager.default.removeItem(at: folder)
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            fatalError("cannot create the fuzzing folder \(folder.path): \(error)")
        }
        atexit { try? FileManager.default.removeItem(at: KeyFileFixture.folder) }
        return folder
    }()

    /// A copy of the committed key file, mode 0600.
    static let url: URL = {
        let url = folder.appendingPathComponent("format-v1.key")
        guard let bytes = FileManager.default.contents(atPath: committed.path),
            FileManager.default.createFile(atPath: url.path, contents: bytes, attributes: [.posixPermissions: 0o600])
        else { fatalError("cannot copy the key file \(committed.path) to \(url.path)") }
        return url
    }()
}
