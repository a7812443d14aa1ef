import Foundation

/// The folder layout of `pass`, the standard Unix password manager: one file per secret,
/// `NAME.gpg` encrypted with GnuPG to the keys listed in the nearest `.gpg-id` above it.
///
/// Names: an entry's path inside the store without `.gpg`, as `pass` itself names it
/// (`work/github.gpg` is the secret `work/github`). Hidden files and folders (`.git`, `.gpg-id`)
/// are no entries. A decrypted entry's first line is the password, which becomes the secret's
/// value; further lines (`login:`, `url:`, notes) are not kept, since a secret holds one value.
/// The encryption itself (running `gpg`) is the caller's.
public struct PasswordStore: Sendable {
    /// The store's folder.
    public let root: URL

    /// A store at `root`.
    ///
    /// - Parameter root: The folder.
    public init(root: URL) { self.root = root }

    /// The store `pass` uses: `$PASSWORD_STORE_DIR`, else `~/.password-store`.
    ///
    /// - Parameters:
    ///   - environment: The process environment.
    ///   - home: The user's home folder.
    /// - Returns: The store.
    public static func standard(environment: [String: String], home: URL) -> PasswordStore {
        if let folder = environment["PASSWORD_STORE_DIR"], !folder.isEmpty {
            return PasswordStore(root: URL(fileURLWithPath: folder, isDirectory: true))
        }
        return PasswordStore(root: home.appendingPathComponent(".password-store", isDirectory: true))
    }

    /// The names of the store's entries, sorted.
    ///
    /// - Returns: The names.
    /// - Throws: ``SecretTransferError/noPasswordStore(_:)`` when the folder does not exist.
    public func entryNames() throws -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isFolder), isFolder.boolValue,
            let walk = FileManager.default.enumerator(
                at: root, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        else { throw SecretTransferError.noPasswordStore(root.path) }
        let prefix = root.standardizedFileURL.path + "/"
        var names: [String] = []
        for case let file as URL in walk where file.pathExtension == "gpg" {
            guard (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let path = file.standardizedFileURL.path
            guard path.hasPrefix(prefix) else { continue }
            names.append(String(path.dropFirst(prefix.count).dropLast(".gpg".count)))
        }
        return names.sorted()
    }

    /// The file of the entry `name`.
    ///
    /// - Parameter name: The secret's name.
    /// - Returns: `ROOT/NAME.gpg`.
    /// - Throws: ``SecretTransferError/invalidName(_:)`` for a name with an empty, `.` or `..`
    ///   component, or a hidden one (which `pass` would not list).
    public func file(for name: String) throws -> URL {
        let components = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !components.contains(where: { $0.isEmpty || $0.hasPrefix(".") }), !name.contains("\0") else {
            throw SecretTransferError.invalidName(name)
        }
        return root.appendingPathComponent(name + ".gpg")
    }

    /// The GnuPG recipients of the entry `name`: the lines of the nearest `.gpg-id` from its
    /// folder up to the root, without `#` comments and blank lines.
    ///
    /// - Parameter name: The secret's name.
    /// - Returns: Key ids, fingerprints or addresses.
    /// - Throws: ``SecretTransferError/noRecipients(_:)`` when no `.gpg-id` names any.
    public func recipients(for name: String) throws -> [String] {
        var folder = try file(for: name).deletingLastPathComponent().standardizedFileURL
        let top = root.standardizedFileURL
        while true {
            if let text = try? String(contentsOf: folder.appendingPathComponent(".gpg-id"), encoding: .utf8) {
                let recipients = text.split(whereSeparator: \.isNewline)
                    .map { $0.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0] }
                    .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                if !recipients.isEmpty { return recipients }
            }
            guard folder.path != top.path, folder.path.hasPrefix(top.path) else { break }
            folder = folder.deletingLastPathComponent().standardizedFileURL
        }
        throw SecretTransferError.noRecipients(top.path)
    }

    /// The secret in a decrypted entry: its first line.
    ///
    /// - Parameter decrypted: What `gpg --decrypt` printed.
    /// - Returns: The first line without its line break, and whether lines followed it (which are
    ///   not kept).
    public static func password(in decrypted: Data) -> (value: Data, hadMoreLines: Bool) {
        guard let end = decrypted.firstIndex(of: UInt8(ascii: "\n")) else { return (decrypted, false) }
        let rest = decrypted[decrypted.index(after: end)...]
        return (Data(decrypted[..<end]), rest.contains { !(Character(UnicodeScalar($0)).isWhitespace) })
    }

    /// What an entry holds before encryption: the value and a line break, as `pass insert` writes.
    ///
    /// - Parameter value: The secret.
    /// - Returns: The plaintext to encrypt.
    public static func plaintext(of value: Data) -> Data { value + Data("\n".utf8) }
}
