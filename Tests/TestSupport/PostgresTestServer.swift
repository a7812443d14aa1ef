import Foundation
import Locking
import Testing
import VaultStorage

/// A throwaway PostgreSQL server for tests: a fresh cluster (`initdb`) in a temporary folder,
/// `postgres` on 127.0.0.1 and a free port with its unix socket in a private folder, `fsync` on,
/// run as the `postgres` user when the tests run as root. Stopped by its own PID, never by name.
///
/// ``shared`` is started once per test process and stopped when the process exits; a test that
/// restarts or stops the server starts its own with ``init()``. Each test takes a fresh database
/// from ``makeDatabase()``. Connections use password authentication (SCRAM) over TCP, as a
/// deployment would.
package final class PostgresTestServer: Sendable {
    /// The superuser the tests connect as.
    static let user = "tokenvault"

    /// The port the server listens on, on 127.0.0.1.
    package let port: Int
    /// The superuser's password: random per server.
    package let password: String
    /// A connection string for the `postgres` database as the superuser.
    package let adminConnectionString: PostgresConnectionString
    private let installation: PostgresInstallation
    private let folder: URL
    private let server: Locked<Process?>

    private var dataFolder: URL { folder.appendingPathComponent("data") }
    private var socketFolder: URL { folder.appendingPathComponent("socket") }
    private var logFile: URL { folder.appendingPathComponent("server.log") }

    /// The server shared by the whole test process, or why there is none. Started on first use;
    /// stopped, and its folder removed, when the process exits.
    package static let shared: Result<PostgresTestServer, PostgresInstallation.Unavailable> = {
        do {
            let server = try PostgresTestServer()
            atexit { PostgresTestServer.stopShared() }
            return .success(server)
        } catch let error as PostgresInstallation.Unavailable {
            FileHandle.standardError.write(Data("SKIPPING the PostgreSQL tests: \(error)\n".utf8))
            return .failure(error)
        } catch {
            let failure = PostgresInstallation.Unavailable(reason: "\(error)")
            FileHandle.standardError.write(Data("SKIPPING the PostgreSQL tests: \(failure)\n".utf8))
            return .failure(failure)
        }
    }()

    /// Whether PostgreSQL tests can run (for `.enabled(if:)`).
    package static var isAvailable: Bool { (try? shared.get()) != nil }

    /// The comment shown for PostgreSQL tests skipped by ``isAvailable``.
    package static let skipComment: Comment =
        "needs a local PostgreSQL server (the postgresql package); it could not be started (see the SKIPPING line above)"

    private static func stopShared() {
        if case .success(let server) = shared { server.stop() }
    }

    /// Creates a cluster in a new temporary folder and starts a server on it.
    ///
    /// - Throws: ``PostgresInstallation/Unavailable`` when PostgreSQL is missing or does not start.
    package init() throws {
        installation = try PostgresInstallation.find()
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("tokenvault-postgres-\(UUID().uuidString)", isDirectory: true)
        // 32 hex digits: shorter than an identifier (63 bytes), so a message quoting it quotes it whole.
        password = (0..<2).map { _ in
            let digits = String(UInt64.random(in: .min ... .max), radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("socket"), withIntermediateDirectories: false,
            attributes: [.posixPermissions: 0o700])
        server = Locked(nil)
        do {
            try installation.giveAway(folder)
            try installation.giveAway(folder.appendingPathComponent("socket"))
            try Self.initializeCluster(installation, in: folder, password: password)
            port = try Self.startServer(installation, in: folder, server: server)
            adminConnectionString = try PostgresConnectionString(
                "host=127.0.0.1 port=\(port) user=\(Self.user) password=\(password) dbname=postgres")
        } catch {
            Self.stop(server)
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
        Self.watch(folder)
    }

    deinit {
        stop()
    }

    /// A new, empty database with a random name, and a connection string for it.
    ///
    /// - Returns: A connection string as the superuser, with its password.
    /// - Throws: ``PostgresError`` when the server refuses.
    package func makeDatabase() throws -> PostgresConnectionString {
        let name = "tokenvault_test_\(UInt64.random(in: .min ... .max))"
        let admin = try PostgresConnection(adminConnectionString)
        defer { admin.close() }
        try admin.execute("CREATE DATABASE \(name)")
        return try adminConnectionString.setting("dbname", to: name)
    }

    /// The running server's own PID (the postmaster, which every new session is forked from), or
    /// `nil` while it is stopped.
    package var processIdentifier: pid_t? {
        server.withLock { $0?.processIdentifier }
    }

    /// Stops the server (a fast shutdown: open connections are told the server is shutting down)
    /// and starts it again on the same folder and port.
    ///
    /// - Throws: ``PostgresInstallation/Unavailable`` when it does not come back.
    package func restart() throws {
        shutDown()
        try startAgain()
    }

    /// Stops the server as ``restart()`` does, keeping its folder and port for ``startAgain()``.
    package func shutDown() {
        stopServer()
    }

    /// Starts the server again after ``shutDown()``, on the same folder and port.
    ///
    /// - Throws: ``PostgresInstallation/Unavailable`` when it does not come back.
    package func startAgain() throws {
        _ = try Self.startServer(installation, in: folder, port: port, server: server)
    }

    /// Stops the server by its own PID and removes its folder. Safe to call twice.
    package func stop() {
        stopServer()
        try? FileManager.default.removeItem(at: folder)
    }

    /// SIGINT (fast shutdown), then SIGQUIT, then SIGKILL, each to the server's own PID, waiting
    /// for it to exit in between.
    private func stopServer() {
        Self.stop(server)
    }

    private static func stop(_ server: Locked<Process?>) {
        server.withLock { server in
            guard let running = server else { return }
            for signal in [SIGINT, SIGQUIT, SIGKILL] where running.isRunning {
                kill(running.processIdentifier, signal)
                let deadline = Date().addingTimeInterval(10)
                while running.isRunning && Date() < deadline { usleep(20_000) }
            }
            server = nil
        }
    }

    private static func initializeCluster(
        _ installation: PostgresInstallation, in folder: URL, password: String
    ) throws {
        let passwordFile = folder.appendingPathComponent("password")
        guard
            FileManager.default.createFile(
                atPath: passwordFile.path, contents: Data("\(password)\n".utf8), attributes: [.posixPermissions: 0o600])
        else { throw PostgresInstallation.Unavailable(reason: "cannot write the password file in \(folder.path)") }
        defer { try? FileManager.default.removeItem(at: passwordFile) }
        try installation.giveAway(passwordFile)
        let log = try logHandle(folder.appendingPathComponent("initdb.log"))
        let initdb = installation.process(
            "initdb",
            [
                "--pgdata=\(folder.appendingPathComponent("data").path)", "--username=\(user)",
                "--pwfile=\(passwordFile.path)", "--auth-local=trust", "--auth-host=scram-sha-256",
                "--encoding=UTF8", "--locale=C", "--no-instructions",
            ], in: folder, log: log)
        try initdb.run()
        initdb.waitUntilExit()
        guard initdb.terminationStatus == 0 else {
            throw PostgresInstallation.Unavailable(
                reason:
                    "initdb failed (exit \(initdb.terminationStatus)): \(tail(folder.appendingPathComponent("initdb.log")))"
            )
        }
    }

    /// Starts `postgres` and waits until `postmaster.pid` says it is ready; on a port taken in the
    /// meantime, tries another free one (unless `port` is fixed, as for a restart).
    @discardableResult
    private static func startServer(
        _ installation: PostgresInstallation, in folder: URL, port fixedPort: Int? = nil, server: Locked<Process?>
    ) throws -> Int {
        var lastError: (any Error)?
        for _ in 0..<(fixedPort == nil ? 3 : 1) {
            let port = try fixedPort ?? freeLoopbackPort()
            let log = try logHandle(folder.appendingPathComponent("server.log"))
            let process = installation.process(
                "postgres",
                [
                    "-D", folder.appendingPathComponent("data").path, "-p", "\(port)",
                    "-c", "listen_addresses=127.0.0.1",
                    "-c", "unix_socket_directories=\(folder.appendingPathComponent("socket").path)",
                    "-c", "fsync=on", "-c", "logging_collector=off",
                ], in: folder, log: log)
            try process.run()
            server.withLock { $0 = process }
            if waitUntilReady(process, data: folder.appendingPathComponent("data")) { return port }
            lastError = PostgresInstallation.Unavailable(
                reason: "postgres did not start: \(tail(folder.appendingPathComponent("server.log")))")
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            server.withLock { $0 = nil }
        }
        throw lastError ?? PostgresInstallation.Unavailable(reason: "postgres did not start")
    }

    /// Waits (30 s at most) for the status line of `postmaster.pid` to read `ready`.
    private static func waitUntilReady(_ process: Process, data: URL) -> Bool {
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning && Date() < deadline {
            if let text = try? String(contentsOf: data.appendingPathComponent("postmaster.pid"), encoding: .utf8),
                let pid = text.split(separator: "\n").first, pid == "\(process.processIdentifier)",
                text.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }).contains("ready")
            {
                return true
            }
            usleep(20_000)
        }
        return false
    }

    /// A port nothing listens on right now, found by binding port 0 on 127.0.0.1.
    private static func freeLoopbackPort() throws -> Int {
        do {
            let (descriptor, port) = try LoopbackSocket.bind(listening: false)
            close(descriptor)
            return port
        } catch {
            throw PostgresInstallation.Unavailable(reason: "cannot bind a loopback port (\(error))")
        }
    }

    /// Starts a watchdog that stops the server (by the PID in `postmaster.pid`) and removes its
    /// folder once this test process is gone, however it ended: a crashed or killed test run
    /// would otherwise leave the server running.
    private static func watch(_ folder: URL) {
        let script = """
            parent=$1; folder=$2; pidfile="$folder/data/postmaster.pid"
            while kill -0 "$parent" 2>/dev/null; do sleep 1; done
            if [ -f "$pidfile" ]; then
              kill -INT "$(head -n 1 "$pidfile")" 2>/dev/null
              for _ in $(seq 1 100); do [ -f "$pidfile" ] || break; sleep 0.1; done
            fi
            rm -rf "$folder"
            """
        let watchdog = Process()
        watchdog.executableURL = URL(fileURLWithPath: "/bin/sh")
        watchdog.arguments = ["-c", script, "watchdog", "\(getpid())", folder.path]
        // Never the test process's own output: `swift test` would wait for the watchdog to close it.
        watchdog.standardInput = FileHandle.nullDevice
        watchdog.standardOutput = FileHandle.nullDevice
        watchdog.standardError = FileHandle.nullDevice
        try? watchdog.run()
    }

    private static func logHandle(_ file: URL) throws -> FileHandle {
        if !FileManager.default.fileExists(atPath: file.path) {
            _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: file)
        handle.seekToEndOfFile()
        return handle
    }

    /// The last lines of a log, for a failure message.
    private static func tail(_ file: URL) -> String {
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(3).joined(separator: " | ")
    }
}
