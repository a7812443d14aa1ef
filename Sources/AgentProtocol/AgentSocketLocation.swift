import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where the agent of one vault listens and logs: `$XDG_RUNTIME_DIR/tokenvault/`, else
/// `tokenvault-UID` in the temporary directory, a folder of mode 0700 that only this user owns.
/// The names come from a hash of the vault's identity (``fileIdentity(_:)`` for a file), so each
/// vault has one agent.
package struct AgentSocketLocation {
    /// A folder that is not this user's private folder: the agent is not used.
    package struct NotPrivate: LocalizedError {
        package let path: String
        package var errorDescription: String? {
            "\(path) is not a folder of mode 0700 owned by you; the agent will not use it"
        }
    }

    package let directory: URL
    package let vaultIdentity: String
    package var socket: URL { directory.appendingPathComponent("agent-\(Self.hash(vaultIdentity)).sock") }
    package var log: URL { directory.appendingPathComponent("agent-\(Self.hash(vaultIdentity)).log") }

    package init(vaultIdentity: String, environment: [String: String]) {
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            directory = URL(fileURLWithPath: runtime).appendingPathComponent("tokenvault")
        } else {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("tokenvault-\(getuid())")
        }
        self.vaultIdentity = vaultIdentity
    }

    /// A vault file's identity: its path with symbolic links resolved.
    package static func fileIdentity(_ file: URL) -> String {
        file.standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Creates the folder (mode 0700) if missing.
    ///
    /// - Throws: ``NotPrivate`` when it exists but another user owns it or others may enter it.
    package func preparePrivateDirectory() throws {
        mkdir(directory.path, 0o700)
        try checkPrivate()
    }

    /// - Throws: ``NotPrivate`` unless the folder is this user's, mode 0700 (no symbolic link).
    package func checkPrivate() throws {
        var status = stat()
        guard lstat(directory.path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == getuid(),
            status.st_mode & 0o077 == 0
        else { throw NotPrivate(path: directory.path) }
    }

    /// Appends a line (never a secret) to the agent's log, mode 0600.
    package func appendLog(_ line: String) {
        let descriptor = open(log.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let text = "\(ISO8601DateFormatter().string(from: Date())) \(line)\n"
        _ = text.withCString { write(descriptor, $0, strlen($0)) }
    }

    /// FNV-1a, 64 bits: only spreads names, the folder's mode is what protects them.
    private static func hash(_ text: String) -> String {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(value, radix: 16)
    }
}
