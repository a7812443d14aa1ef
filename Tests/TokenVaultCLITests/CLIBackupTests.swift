import Foundation
import TestSupport
import Testing
import TokenVault

@Suite struct CLIBackupTests {
    /// Starts `tokenvault backup` of `vault` to `copy` under `umask 000`, so any file the backup
    /// creates without an explicit mode is open to everyone.
    static func startBackupUnderOpenUmask(_ vault: CLIVault, to copy: URL) throws -> Process {
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/bash")
        shell.arguments = [
            "-c",
            "umask 000 && exec '\(CLIProcess.executable.path)' backup '\(copy.path)' "
                + vault.unlock.map { "'\($0)'" }.joined(separator: " "),
        ]
        try shell.run()
        return shell
    }

    /// Every file or folder under `folder` (the folder itself excluded) whose mode lets its group or
    /// others in, as `relative path: mode`.
    static func looseEntries(under folder: URL) -> Set<String> {
        var found: Set<String> = []
        guard let names = FileManager.default.subpaths(atPath: folder.path) else { return found }
        for name in names {
            let attributes = try? FileManager.default.attributesOfItem(
                atPath: folder.appendingPathComponent(name).path)
            if let mode = attributes?[.posixPermissions] as? Int, mode & 0o077 != 0 {
                found.insert("\(name): \(String(mode, radix: 8))")
            }
        }
        return found
    }

    /// Under a umask that grants everyone everything, a backup never shows a file others could open,
    /// at any moment: the destination folder is watched while the copy is written. The copy and a
    /// folder made for it end up private, nothing else is left beside them, and an existing file is
    /// never replaced.
    @Test func backupIsPrivateAtEveryMomentWhateverTheUmask() throws {
        let vault = try CLIVault()
        do {
            // Enough data that writing the copy takes a while to watch.
            let opened = try Vault.open(
                at: URL(fileURLWithPath: vault.path), unlock: .passphrase("cli test passphrase"))
            for index in 0..<40 {
                try opened.set(
                    String(repeating: "\(index % 10)", count: 32 * 1024), for: SecretKey<String>("bulk-\(index)"))
            }
        }
        try vault.run(["secret", "set", "api"], input: "value-1").expectSuccess()
        let folder = vault.directory.file("backups")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        try setFileMode(0o700, folder)
        let copy = folder.appendingPathComponent("copy.db")
        let shell = try Self.startBackupUnderOpenUmask(vault, to: copy)
        var loose: Set<String> = []
        var looks = 0
        while shell.isRunning {
            loose.formUnion(Self.looseEntries(under: folder))
            looks += 1
        }
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0)
        #expect(loose.isEmpty, "seen open to others during the backup (\(looks) looks): \(loose)")
        #expect(try fileMode(copy) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["copy.db"])
        let restored = try CLIProcess.run([
            "secret", "get", "api", "--vault", copy.path, "--passphrase-file", vault.passphraseFile,
        ])
        #expect(restored.stdout == "value-1")

        let before = try Data(contentsOf: copy)
        let again = try vault.run(["backup", copy.path])
        #expect(again.status == 1 && again.stderr.contains("Already exists"), "\(again.stderr)")
        #expect(try Data(contentsOf: copy) == before)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(!left.contains { $0.hasPrefix(".") }, "no private folder left behind: \(left)")
    }

    /// A destination folder that does not exist yet is made 0700, whatever the umask.
    @Test func aMissingDestinationFolderIsMadePrivate() throws {
        let vault = try CLIVault()
        let copy = vault.directory.file("new/folder/copy.db")
        let shell = try Self.startBackupUnderOpenUmask(vault, to: copy)
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0)
        #expect(try fileMode(copy) == 0o600)
        #expect(try fileMode(copy.deletingLastPathComponent()) == 0o700)
        #expect(try fileMode(copy.deletingLastPathComponent().deletingLastPathComponent()) == 0o700)
    }
}
