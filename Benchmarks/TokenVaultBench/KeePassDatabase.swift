import Foundation

/// A `.kdbx` database for the cli section's comparison, driven by `keepassxc-cli` with the
/// passphrase on standard input. `keepassxc-cli` (2.7) creates databases with the AES key
/// derivation only, its rounds set by a target decryption time: the cost is matched by time, to
/// what tokenvault's Argon2id derivation takes in the same run.
struct KeePassDatabase: ComparedStore {
    let name = "keepassxc-cli"
    let cli: URL
    let database: URL
    let environment: [String: String]
    /// The passphrase and a line.
    let unlockInput: URL
    /// The passphrase, then the new entry's password, a line each.
    let addInput: URL

    /// A database at `file` holding `secrets` entries (`secret-0`...), imported from a KeePass XML
    /// file in one call, its key derivation set to take `decryptionMilliseconds`.
    ///
    /// - Returns: `nil` when `keepassxc-cli` is not installed.
    static func make(
        at file: URL, secrets: Int, passphrase: String, decryptionMilliseconds: Int, environment: [String: String]
    ) throws -> KeePassDatabase? {
        guard let cli = ProcessCall.installed("keepassxc-cli", environment) else { return nil }
        let folder = file.deletingLastPathComponent()
        let stem = file.deletingPathExtension().lastPathComponent
        let export = folder.appendingPathComponent("\(stem).xml")
        try Data(exportXML(secrets: secrets).utf8).write(to: export)
        let newPassphrase = folder.appendingPathComponent("\(stem)-new")
        try Data("\(passphrase)\n\(passphrase)\n".utf8).write(to: newPassphrase)
        chmod(newPassphrase.path, 0o600)
        try ProcessCall(
            program: cli,
            arguments: [
                "import", "-q", "--set-password", "-t", String(decryptionMilliseconds), export.path, file.path,
            ],
            environment: environment, input: newPassphrase
        ).run()
        let unlockInput = folder.appendingPathComponent("\(stem)-unlock")
        try Data("\(passphrase)\n".utf8).write(to: unlockInput)
        chmod(unlockInput.path, 0o600)
        let addInput = folder.appendingPathComponent("\(stem)-add")
        try Data("\(passphrase)\nbenchmark value\n".utf8).write(to: addInput)
        chmod(addInput.path, 0o600)
        return KeePassDatabase(
            cli: cli, database: file, environment: environment, unlockInput: unlockInput, addInput: addInput)
    }

    func read(_ index: Int) -> ProcessCall {
        ProcessCall(
            program: cli, arguments: ["show", "-q", "-a", "Password", database.path, "secret-\(index)"],
            environment: environment, input: unlockInput)
    }

    func add(_ index: Int) -> ProcessCall {
        ProcessCall(
            program: cli, arguments: ["add", "-q", "--password-prompt", database.path, "added-\(index)"],
            environment: environment, input: addInput)
    }

    /// The KeePass XML export of a database with `secrets` entries in its root group.
    private static func exportXML(secrets: Int) -> String {
        func uuid(_ value: Int) -> String {
            var bytes = [UInt8](repeating: 0, count: 16)
            withUnsafeBytes(of: UInt64(value).bigEndian) { bytes.replaceSubrange(8..<16, with: $0) }
            bytes[0] = 1
            return Data(bytes).base64EncodedString()
        }
        let entries = (0..<secrets).map { index in
            "<Entry><UUID>\(uuid(index + 1))</UUID>"
                + "<String><Key>Title</Key><Value>secret-\(index)</Value></String>"
                + "<String><Key>Password</Key><Value>value \(index)</Value></String></Entry>"
        }
        return """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <KeePassFile><Meta><Generator>tokenvault-bench</Generator></Meta><Root><Group>
            <UUID>\(uuid(0))</UUID><Name>Root</Name>
            \(entries.joined(separator: "\n"))
            </Group></Root></KeePassFile>
            """
    }
}
