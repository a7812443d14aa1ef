import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where the agent of one vault listens and logs: `$XDG_RUNTIME_DIR/tokenvault/`, else
/// `tokenvault-UID` in the temporary directory, a folder of mode 0700 that only this user owns.
/// The names come from a hash of the vault's resolved location, so each vault has one agent.
struct AgentSocketLocation {
    /// A folder that is not this user's private folder: the agent is not used.
    struct NotPrivate: LocalizedError {
        let path: String
        var errorDescription: String? {
            "\(path) is not a folder of mode 0700 owned by you; the agent will not use it"
        }
    }

    let directory: URL
    let vaultIdentity: String
    var socket: URL { directory.appendingPathComponent("agent-\(Self.hash(vaultIdentity)).sock") }
    var log: URL { directory.appendingPathComponent("agent-\(Self.hash(vaultIdentity)).log") }

    init(vault: VaultLocation, environment: [String: String]) {
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            directory = URL(fileURLWithPath: runtime).appendingPathComponent("tokenvault")
        } else {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("tokenvault-\(getuid())")
        }
        vaultIdentity = Self.vaultIdentity(vault)
    }

    /// The vault's file with symbolic links resolved, or a PostgreSQL connection's masked options
    /// (never its password).
    static func vaultIdentity(_ vault: VaultLocation) -> String {
        switch vault {
        case .file(let url): url.standardizedFileURL.resolvingSymlinksInPath().path
        case .postgres(_, let masked): "postgres:" + masked
        }
    }

    /// Creates the folder (mode 0700) if missing.
    ///
    /// - Throws: ``NotPrivate`` when it exists but another user owns it or others may enter it.
    func preparePrivateDirectory() throws {
        mkdir(directory.path, 0o700)
        try checkPrivate()
    }

    /// - Throws: ``NotPrivate`` unless the folder is this user's, mode 0700 (no symbolic link).
    func checkPrivate() throws {
        var status = stat()
        guard lstat(directory.path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == getuid(),
            status.st_mode & 0o077 == 0
        else { throw NotPrivate(path: directory.path) }
    }

    /// Appends a line (never a secret) to the agent's log, mode 0600.
    func appendLog(_ line: String) {
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
