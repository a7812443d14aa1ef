import Foundation

/// The key file of the committed fixture vault `Tests/TestSupport/Resources/Fixtures/format-v1.vault`
/// (a test key, public in this repository), written once per process to a private temporary
/// folder that is removed at exit.
enum KeyFileFixture {
    /// The bytes of `Tests/TestSupport/Resources/Fixtures/format-v1.key`.
    static let bytes: [UInt8] = [
        0xf7, 0xed, 0x2b, 0xe2, 0x97, 0x14, 0x62, 0x9c, 0x3c, 0xa1, 0x9f, 0x13, 0x42, 0x2e, 0x10, 0xa6,
        0xd9, 0x73, 0x96, 0xf2, 0x92, 0xdc, 0x8b, 0xa2, 0x3e, 0x2a, 0xf4, 0x3f, 0x49, 0x88, 0xd0, 0x04,
        0xb2, 0xa9, 0x7f, 0x92, 0x87, 0x9a, 0x16, 0xda, 0xf0, 0xd5, 0xce, 0x21, 0x70, 0xd2, 0xcb, 0x8a,
        0x8f, 0x3a, 0x77, 0xcd, 0xf3, 0xff, 0x18, 0x4e, 0x69, 0xe7, 0xb8, 0x46, 0x06, 0x9a, 0x26, 0xad,
    ]

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

    /// The key file, mode 0600.
    static let url: URL = {
        let url = folder.appendingPathComponent("format-v1.key")
        guard
            FileManager.default.createFile(
                atPath: url.path, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
        else { fatalError("cannot write the key file \(url.path)") }
        return url
    }()
}
