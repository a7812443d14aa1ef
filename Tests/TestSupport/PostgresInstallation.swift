import Foundation

/// The PostgreSQL server programs on this machine, and the account to run them as.
package struct PostgresInstallation: Sendable {
    /// The folder holding `initdb` and `postgres`.
    let binaries: URL
    /// The unprivileged account the server runs as when the tests run as root (PostgreSQL refuses
    /// to run as root); `nil` when the tests already run unprivileged.
    let account: Account?

    /// A user the server runs as.
    struct Account: Sendable {
        let name: String
        let userID: uid_t
        let groupID: gid_t
    }

    /// Why the server cannot be started here.
    package struct Unavailable: Error, CustomStringConvertible {
        /// What is missing or failed.
        package let reason: String
        /// The reason.
        package var description: String { reason }
    }

    /// Finds the programs (`pg_config --bindir`, then the newest `/usr/lib/postgresql/*/bin`) and,
    /// under root, the `postgres` account the Debian package creates.
    ///
    /// - Throws: ``Unavailable`` saying what is missing.
    static func find() throws -> PostgresInstallation {
        var candidates: [URL] = []
        if let bindir = run(URL(fileURLWithPath: "/usr/bin/env"), ["pg_config", "--bindir"]), bindir.status == 0 {
            candidates.append(URL(fileURLWithPath: bindir.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.sorted(by: { $0.compare($1, options: .numeric) == .orderedDescending }) {
            candidates.append(URL(fileURLWithPath: "/usr/lib/postgresql/\(version)/bin"))
        }
        let programs = ["initdb", "postgres"]
        guard
            let binaries = candidates.first(where: { folder in
                programs.allSatisfy {
                    FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent($0).path)
                }
            })
        else {
            throw Unavailable(
                reason: "PostgreSQL is not installed: no initdb and postgres in `pg_config --bindir` or "
                    + "/usr/lib/postgresql/*/bin (`make deps` installs the postgresql package)")
        }
        guard getuid() == 0 else { return PostgresInstallation(binaries: binaries, account: nil) }
        guard let entry = getpwnam("postgres") else {
            throw Unavailable(
                reason: "the tests run as root, PostgreSQL refuses to, and there is no postgres user to run it as")
        }
        guard FileManager.default.isExecutableFile(atPath: setpriv.path) else {
            throw Unavailable(
                reason: "the tests run as root and \(setpriv.path) is missing to drop to the postgres user")
        }
        return PostgresInstallation(
            binaries: binaries,
            account: Account(name: "postgres", userID: entry.pointee.pw_uid, groupID: entry.pointee.pw_gid))
    }

    static let setpriv = URL(fileURLWithPath: "/usr/bin/setpriv")

    /// A process that runs `program` with `arguments` as ``account`` (through `setpriv`, which
    /// executes the program in its own process, so its PID is the program's), in `folder`, with
    /// no terminal and output to `log`.
    func process(_ program: String, _ arguments: [String], in folder: URL, log: FileHandle) -> Process {
        let process = Process()
        let executable = binaries.appendingPathComponent(program)
        if let account {
            process.executableURL = Self.setpriv
            process.arguments =
                ["--reuid=\(account.userID)", "--regid=\(account.groupID)", "--clear-groups", "--", executable.path]
                + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        // A folder the server's account can enter: initdb resolves its own path from there.
        process.currentDirectoryURL = folder
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        return process
    }

    /// Hands `path` to the server's account (a no-op when the tests run unprivileged).
    func giveAway(_ path: URL) throws {
        guard let account else { return }
        guard chown(path.path, account.userID, account.groupID) == 0 else {
            throw Unavailable(reason: "cannot hand \(path.path) to the \(account.name) user: errno \(errno)")
        }
    }

    /// Runs a program to the end and returns its status and output, or `nil` when it cannot start.
    static func run(_ executable: URL, _ arguments: [String]) -> (status: Int32, output: String)? {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        guard (try? process.run()) != nil else { return nil }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
